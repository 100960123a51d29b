/**
 * Observable Plot rendered at build time into static markup (SVG plus its legend): charts cost
 * the reader no JavaScript. linkedom provides the DOM Plot draws into.
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';

/** A positional scale as Plot resolved it: enough for the page to place an overlay without loading Plot. */
export interface PositionScale {
  readonly type: 'linear' | 'log';
  readonly domain: readonly [number, number];
  readonly range: readonly [number, number];
}
/** @deprecated the name from before log scales; a PositionScale. */
export type LinearScale = PositionScale;

export interface RenderedPlot {
  readonly markup: string;
  /** Present when the plot has a linear or log (niced or not) x or y scale. */
  readonly x: PositionScale | null;
  readonly y: PositionScale | null;
}

/**
 * Observable's ten categorical colours (Plot's default scheme), given explicitly so that a legend
 * drawn outside Plot and every chart of a page agree on each engine's colour.
 */
export const CATEGORICAL_COLOURS = ['#4269d0', '#efb118', '#ff725c', '#6cc5b0', '#3ca951', '#ff8ab7', '#a463f2', '#97bbf5', '#9c6b4e', '#9498a0'] as const;

/** Each engine's colour: the engines sorted, then the scheme's colours in turn. */
export function engineColours(engines: Iterable<string>): Map<string, string> {
  return new Map([...new Set(engines)].sort().map((engine, i) => [engine, CATEGORICAL_COLOURS[i % CATEGORICAL_COLOURS.length]!]));
}

const DEFAULTS = {
  width: 760,
  height: 380,
  marginLeft: 60,
  style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
} as const;

type Figure = { outerHTML: string; scale(name: string): { type: string; domain: unknown[]; range?: unknown[] } | undefined };

function position(figure: Figure, name: 'x' | 'y'): PositionScale | null {
  const scale = figure.scale(name);
  if (!scale || (scale.type !== 'linear' && scale.type !== 'log') || !scale.range) return null;
  const [d0, d1] = scale.domain as number[];
  const [r0, r1] = scale.range as number[];
  return { type: scale.type, domain: [d0!, d1!], range: [r0!, r1!] };
}

export function renderPlotWithScales(options: Omit<Plot.PlotOptions, 'document'>): RenderedPlot {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const figure = Plot.plot({ ...DEFAULTS, ...options, document: document as unknown as Document }) as unknown as Figure;
  return { markup: figure.outerHTML, x: position(figure, 'x'), y: position(figure, 'y') };
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
