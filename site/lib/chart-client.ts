/**
 * The charts' interactions in the browser, on top of prerendered SVG that reads without them
 * (ParetoChart.astro, HistoryChart.astro; chart-render.ts draws the points this works on):
 * - details of a point on hover, focus or tap, in a box that is also a polite live region: engine,
 *   version, load (and for a release of the history, the day it was published and its release
 *   notes), why it is excluded where it is not valid, each value with its 95% interval, the run
 *   count and a link to the run page;
 * - the keyboard: one tab stop per chart (roving tabindex), arrow keys between points, Home/End,
 *   Enter opens the point's run (each point is a link), Escape closes the details;
 * - the legend's toggles: an engine or one version of it hidden from every chart of the page;
 * - log scales on the charts that prerendered them (the Pareto chart: the SLA bound is placed
 *   again on the new scale, pareto-sla.ts);
 * toggles and scale in the URL (chart-state.ts), other parameters kept. No Plot, no framework;
 * text only from data (textContent, never markup).
 */
import { hideToken, isHidden, parseChartState, toggled, withChartState, type ChartState } from './chart-state.ts';
import { formatInterval, formatNumber } from './format.ts';
import { VALIDITY_LABELS, VALIDITY_STATUSES, type Validity } from '../../harness/contract/validity.ts';
import { layoutParetoOverlay, pointKey } from './pareto-sla.ts';

type Point = SVGGElement;

const POINTS = ':scope > [data-plot] g[data-point]';
/** One state per page, whichever component's script ran first (every later call finds the figures enhanced). */
let current: ChartState | null = null;

const keyOf = (p: Element) => {
  const d = (p as SVGElement).dataset;
  return pointKey(d.engine ?? '', d.version ?? '', d.load ?? '');
};
const linkOf = (p: Element) => p.querySelector<SVGAElement>(':scope > a');
const visiblePoints = (figure: HTMLElement) => [...figure.querySelectorAll<Point>(POINTS)].filter((p) => !p.hasAttribute('data-hidden'));
const positionOf = (p: Element): [number, number] => {
  const m = /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(p.getAttribute('transform') ?? '');
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
};
const num = (v: string | undefined) => (v === undefined || v === '' ? null : Number(v));

export function enhanceCharts(doc: Document, win: Window): void {
  const figures = [...doc.querySelectorAll<HTMLElement>('figure[data-chart]')].filter((f) => f.querySelector(':scope > [data-plot]') && !f.hasAttribute('data-enhanced'));
  if (figures.length === 0) return;
  const known = new Set([...doc.querySelectorAll<HTMLInputElement>('input[data-toggle-engine]')].map((i) => hideToken(i.dataset.toggleEngine!, i.dataset.toggleVersion)));
  current ??= parseChartState(win.location.search, known);
  for (const figure of figures) enhanceFigure(figure, doc, win);
  applyState(doc, current);
}

function setState(doc: Document, win: Window, state: ChartState): void {
  current = state;
  const url = `${win.location.pathname}${withChartState(win.location.search, state)}${win.location.hash}`;
  win.history.replaceState(win.history.state, '', url);
  applyState(doc, state);
}

function enhanceFigure(figure: HTMLElement, doc: Document, win: Window): void {
  figure.setAttribute('data-enhanced', '');
  for (const el of figure.querySelectorAll<HTMLElement>('[data-chart-controls], [data-chart-legend-hint], input[data-toggle-engine]')) el.hidden = false;
  // The details box replaces the native tooltips (kept in the markup for readers without JavaScript).
  const template = figure.querySelector<HTMLTemplateElement>('template[data-plot-alt]');
  for (const root of [figure, template?.content].filter((r): r is HTMLElement | DocumentFragment => !!r)) for (const title of root.querySelectorAll('g[data-point] title')) title.remove();
  const box = figure.querySelector<HTMLElement>('[data-chart-details]');
  let touched = false;

  figure.addEventListener('change', (event) => {
    const input = event.target as HTMLInputElement;
    if (input.matches('input[data-toggle-engine]')) setState(doc, win, toggled(current!, hideToken(input.dataset.toggleEngine!, input.dataset.toggleVersion), input.checked));
    else if (input.matches('input[data-chart-log]')) setState(doc, win, { ...current!, log: input.checked });
  });
  figure.addEventListener('pointerdown', (event) => {
    touched = event.pointerType === 'touch';
  });
  // A tap anywhere but on a point or the box closes the details (a pointer leaving the figure does it for a mouse).
  doc.addEventListener('pointerdown', (event) => {
    const target = event.target as Element;
    if (event.pointerType === 'touch' && !box?.contains(target) && !(figure.contains(target) && target.closest('g[data-point]'))) clearDetails(figure);
  });
  figure.addEventListener('pointerover', (event) => {
    const point = (event.target as Element).closest<Point>('g[data-point]');
    if (point && figure.contains(point) && event.pointerType !== 'touch') showDetails(figure, point);
  });
  figure.addEventListener('pointerleave', () => {
    const focused = (doc.activeElement as Element | null)?.closest<Point>('g[data-point]');
    if (focused && figure.contains(focused)) showDetails(figure, focused);
    else clearDetails(figure);
  });
  figure.addEventListener('focusin', (event) => {
    const point = (event.target as Element).closest<Point>('g[data-point]');
    if (!point) return;
    setStop(figure, point);
    showDetails(figure, point);
  });
  figure.addEventListener('click', (event) => {
    const point = (event.target as Element).closest<Point>('g[data-point]');
    // A tap shows the details first; a second tap on the same point follows its link.
    if (point && touched && box?.dataset.point !== keyOf(point)) {
      event.preventDefault();
      linkOf(point)?.focus();
      showDetails(figure, point);
    }
  });
  figure.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      if (box?.dataset.point === undefined) return;
      event.preventDefault();
      // From the link in the box, back to the point it describes (which shows it again), then closed.
      if (box.contains(event.target as Node)) {
        const point = figure.querySelector<Point>(`${POINTS}[data-active]`);
        if (point) linkOf(point)?.focus();
      }
      clearDetails(figure);
      return;
    }
    const point = (event.target as Element).closest<Point>('g[data-point]');
    if (!point) return;
    const next = neighbour(figure, point, event.key);
    if (next === undefined) return;
    event.preventDefault();
    if (next) linkOf(next)?.focus();
  });
}

/** The point an arrow key (or Home, End) moves to; null: none that way; undefined: not a moving key. */
function neighbour(figure: HTMLElement, from: Point, key: string): Point | null | undefined {
  const points = visiblePoints(figure)
    .map((p) => ({ p, at: positionOf(p) }))
    .sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1]);
  const i = points.findIndex((q) => q.p === from);
  const [x, y] = positionOf(from);
  switch (key) {
    case 'ArrowRight':
      return points[i + 1]?.p ?? null;
    case 'ArrowLeft':
      return i > 0 ? points[i - 1]!.p : null;
    case 'Home':
      return points[0]?.p ?? null;
    case 'End':
      return points[points.length - 1]?.p ?? null;
    case 'ArrowUp':
    case 'ArrowDown': {
      const up = key === 'ArrowUp';
      const candidates = points.filter((q) => (up ? q.at[1] < y - 0.5 : q.at[1] > y + 0.5));
      const cost = (q: { at: [number, number] }) => (2 * (q.at[0] - x)) ** 2 + (q.at[1] - y) ** 2;
      return candidates.sort((a, b) => cost(a) - cost(b))[0]?.p ?? null;
    }
    default:
      return undefined;
  }
}

/** The roving tab stop: this point's link alone is in the tab order. */
function setStop(figure: HTMLElement, point: Point): void {
  for (const p of figure.querySelectorAll<Point>(POINTS)) {
    linkOf(p)?.setAttribute('tabindex', p === point ? '0' : '-1');
    if (p === point) p.setAttribute('data-active', '');
    else p.removeAttribute('data-active');
  }
}

function paragraph(doc: Document, ...parts: Array<string | Node>): HTMLParagraphElement {
  const p = doc.createElement('p');
  p.append(...parts);
  return p;
}

function valueLine(doc: Document, name: string, unit: string, value: number | null, lo: number | null, hi: number | null): HTMLParagraphElement {
  const interval = formatInterval(lo, hi);
  return paragraph(doc, `${name}: ${formatNumber(value)} ${unit}${interval ? `; 95% interval ${interval}` : ''}`);
}

function showDetails(figure: HTMLElement, point: Point): void {
  const box = figure.querySelector<HTMLElement>('[data-chart-details]');
  if (!box) return;
  const doc = figure.ownerDocument;
  const d = point.dataset;
  const f = figure.dataset;
  const strong = doc.createElement('strong');
  strong.textContent = `${d.engine} ${d.version}`;
  // A history point says when its release came out as well as when it was first measured.
  const when = [d.released ? `released ${d.released}` : '', d.date ? `first measured ${d.date}` : ''].filter((t) => t !== '').join(', ');
  const lines: HTMLElement[] = [paragraph(doc, strong, ` at ${d.load}${when ? `, ${when}` : ''}`)];
  if (d.methodology) lines.push(paragraph(doc, `Methodology ${d.methodology}`));
  // The native title said why a release is excluded; the box replaces it, so it says so too.
  const validity = (VALIDITY_STATUSES as readonly string[]).includes(d.validity ?? '') ? (d.validity as Validity) : 'valid';
  if (validity !== 'valid') lines.push(paragraph(doc, `Excluded: ${VALIDITY_LABELS[validity]}${d.validityReason ? `, ${d.validityReason}` : ''}. Not joined into the line, never compared.`));
  if (f.xName) lines.push(valueLine(doc, f.xName, f.xUnit ?? '', num(d.x), num(d.xLo), num(d.xHi)));
  if (f.yName) lines.push(valueLine(doc, f.yName, f.yUnit ?? '', num(d.y), num(d.yLo), num(d.yHi)));
  const runs = num(d.runs);
  if (runs !== null) lines.push(paragraph(doc, runs === 1 ? '1 run: no interval' : `${runs} runs`));
  const band = formatInterval(num(d.bandLo), num(d.bandHi));
  if (band) lines.push(paragraph(doc, `Noise band: ${band} ${f.yUnit ?? ''}`));
  const href = linkOf(point)?.getAttribute('href');
  if (href) {
    const a = doc.createElement('a');
    a.href = href;
    a.textContent = `Run ${d.run ?? ''} →`;
    lines.push(paragraph(doc, a));
  }
  if (d.releaseUrl) {
    const notes = doc.createElement('a');
    notes.href = d.releaseUrl;
    notes.rel = 'noopener';
    notes.setAttribute('data-release-notes', '');
    notes.textContent = `${d.version} release notes →`;
    lines.push(paragraph(doc, notes));
  }
  box.replaceChildren(...lines);
  box.dataset.point = keyOf(point);
  // Next to the point, inside the figure.
  const fr = figure.getBoundingClientRect();
  const pr = (point.querySelector('.hit') ?? point).getBoundingClientRect();
  const width = box.offsetWidth;
  let left = pr.right - fr.left + 6;
  if (left + width > fr.width) left = pr.left - fr.left - width - 6;
  box.style.left = `${Math.max(0, Math.min(left, fr.width - width))}px`;
  box.style.top = `${Math.max(0, pr.bottom - fr.top + 6)}px`;
}

function clearDetails(figure: HTMLElement): void {
  const box = figure.querySelector<HTMLElement>('[data-chart-details]');
  if (!box) return;
  box.replaceChildren();
  delete box.dataset.point;
}

/** Swaps the shown variant (linear, log) for the prerendered one in the template, keeping marks, focus and details. */
function swapVariant(figure: HTMLElement): void {
  const template = figure.querySelector<HTMLTemplateElement>('template[data-plot-alt]');
  const shown = figure.querySelector<HTMLElement>(':scope > [data-plot]');
  const next = template?.content.querySelector<HTMLElement>('[data-plot]');
  if (!template || !shown || !next) return;
  const doc = figure.ownerDocument;
  const marks = new Map([...shown.querySelectorAll<Point>('g[data-point]')].map((p) => [keyOf(p), p.getAttribute('data-sla')]));
  const active = shown.querySelector<Point>('g[data-point][data-active]') ?? shown.querySelector<Point>('g[data-point]:has(> a[tabindex="0"])');
  const hadFocus = shown.contains(doc.activeElement);
  const detailsFor = figure.querySelector<HTMLElement>('[data-chart-details]')?.dataset.point;
  const adopted = doc.importNode(next, true);
  next.remove();
  shown.replaceWith(adopted);
  template.content.append(shown);
  for (const name of ['xScale', 'xDomain', 'xRange', 'yScale'] as const) {
    if (adopted.dataset[name] !== undefined) figure.dataset[name] = adopted.dataset[name];
  }
  const byKey = new Map([...adopted.querySelectorAll<Point>('g[data-point]')].map((p) => [keyOf(p), p]));
  for (const [key, sla] of marks) {
    const p = byKey.get(key);
    if (p && sla !== null) p.setAttribute('data-sla', sla);
  }
  if (figure.dataset.chart === 'pareto') layoutParetoOverlay(figure);
  const stop = active ? byKey.get(keyOf(active)) : undefined;
  if (stop) setStop(figure, stop);
  if (stop && hadFocus) linkOf(stop)?.focus();
  const shownPoint = detailsFor ? byKey.get(detailsFor) : undefined;
  if (shownPoint) showDetails(figure, shownPoint);
}

function applyState(doc: Document, state: ChartState): void {
  for (const figure of doc.querySelectorAll<HTMLElement>('figure[data-chart][data-enhanced]')) {
    const log = figure.querySelector<HTMLInputElement>('input[data-chart-log]');
    if (log) {
      log.checked = state.log;
      const shownScale = figure.querySelector<HTMLElement>(':scope > [data-plot]')?.dataset.scale;
      if ((shownScale === 'log') !== state.log) swapVariant(figure);
    }
    for (const input of figure.querySelectorAll<HTMLInputElement>('input[data-toggle-engine]')) {
      const engine = input.dataset.toggleEngine!;
      const version = input.dataset.toggleVersion;
      input.checked = !state.hidden.has(hideToken(engine, version));
      input.disabled = version !== undefined && state.hidden.has(hideToken(engine));
    }
    for (const el of figure.querySelectorAll<SVGElement>(':scope > [data-plot] [data-series], :scope > [data-plot] g[data-point]')) {
      if (isHidden(state.hidden, el.dataset.engine ?? '', el.dataset.version)) el.setAttribute('data-hidden', '');
      else el.removeAttribute('data-hidden');
    }
    // The tab stop and the details never rest on a hidden point.
    const points = visiblePoints(figure);
    const stop = figure.querySelector<Point>(`${POINTS}:has(> a[tabindex="0"])`);
    if (points.length > 0 && (!stop || stop.hasAttribute('data-hidden'))) setStop(figure, [...points].sort((a, b) => positionOf(a)[0] - positionOf(b)[0])[0]!);
    const box = figure.querySelector<HTMLElement>('[data-chart-details]');
    if (box?.dataset.point !== undefined && !points.some((p) => keyOf(p) === box.dataset.point)) clearDetails(figure);
  }
}
