/**
 * Observable Plot rendered at build time into static markup (SVG plus its legend): charts cost
 * the reader no JavaScript. linkedom provides the DOM Plot draws into.
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';

/** A positional scale as Plot resolved it: enough for the page to place an overlay without loading Plot. */
export interface LinearScale {
  readonly domain: readonly [number, number];
  readonly range: readonly [number, number];
}

export interface RenderedPlot {
  readonly markup: string;
  /** Present when the plot has a linear (or niced linear) x or y scale. */
  readonly x: LinearScale | null;
  readonly y: LinearScale | null;
}

const DEFAULTS = {
  width: 760,
  height: 380,
  marginLeft: 60,
  style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
} as const;

type Figure = { outerHTML: string; scale(name: string): { type: string; domain: unknown[]; range?: unknown[] } | undefined };

function linear(figure: Figure, name: 'x' | 'y'): LinearScale | null {
  const scale = figure.scale(name);
  if (!scale || scale.type !== 'linear' || !scale.range) return null;
  const [d0, d1] = scale.domain as number[];
  const [r0, r1] = scale.range as number[];
  return { domain: [d0!, d1!], range: [r0!, r1!] };
}

export function renderPlotWithScales(options: Omit<Plot.PlotOptions, 'document'>): RenderedPlot {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const figure = Plot.plot({ ...DEFAULTS, ...options, document: document as unknown as Document }) as unknown as Figure;
  return { markup: figure.outerHTML, x: linear(figure, 'x'), y: linear(figure, 'y') };
}

/**
 * Sets an attribute so that the serialized markup reads back as `value` in a browser. linkedom
 * escapes `"` but not `&` in HTML documents, so "a&quot;b" would come back as `a"b`: escape `&`
 * here unless this linkedom already does (probed, so an upgrade cannot double-escape).
 */
export function setAttributeSafely(element: Element, name: string, value: string): void {
  const probe = element.ownerDocument.createElement('i');
  probe.setAttribute('t', '&');
  element.setAttribute(name, probe.outerHTML.includes('&amp;') ? value : value.replaceAll('&', '&amp;'));
}

export function renderPlot(options: Omit<Plot.PlotOptions, 'document'>): string {
  return renderPlotWithScales(options).markup;
}

export { Plot };
