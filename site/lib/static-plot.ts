/**
 * Observable Plot rendered at build time into static markup (SVG plus its legend): charts cost
 * the reader no JavaScript. linkedom provides the DOM Plot draws into.
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';

export function renderPlot(options: Omit<Plot.PlotOptions, 'document'>): string {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const figure = Plot.plot({
    width: 760,
    height: 380,
    marginLeft: 60,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    ...options,
    document: document as unknown as Document,
  }) as unknown as { outerHTML: string };
  return figure.outerHTML;
}

export { Plot };
