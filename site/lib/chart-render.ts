/**
 * The Pareto and history charts as static SVG, at build time: Observable Plot draws the axes and
 * grid, and one custom mark draws what the page's script (chart-client.ts) and the SLA filter
 * (pareto-sla.ts) work on, with the data they need in attributes:
 * - every point a `g[data-point]` (engine, version, load, values, intervals, runs) holding a link
 *   to its run page (`a`, the point's keyboard stop), its error bars and, for a single run, a
 *   dashed open marker in place of the filled one;
 * - every line (and noise band) a `g[data-series]` with its engine (and version), so a legend can
 *   hide it with its points.
 * No JavaScript is needed to read a chart; the tables after them hold every number as text.
 */
import type { HeadlineMetric } from '../../harness/contract/metric-catalog.ts';
import type { BisectionRow, Release } from '../../harness/contract/site-data.ts';
import { bisectionHeadline, bisectionMethod } from './bisection-text.ts';
import { compareMethodology, methodologyChanges, releaseDateLabel, releaseSlots, slotKey, type MethodologyChange } from './release-axis.ts';
import { VALIDITY_LABELS, VALIDITY_STATUSES, type Validity } from '../../harness/contract/validity.ts';
import { extent, intervalOf, logScaleUseful, noiseBand, noiseOf, runsOf, type Interval, type NoiseRow, type ParetoChartPoint } from './chart-data.ts';
import { directionArrow, directionWords, formatInterval, formatNumber } from './format.ts';
import { Plot, renderPlotWithScales, setAttributeSafely, type PositionScale } from './static-plot.ts';
import { runHref } from './run-link.ts';

const SVG = 'http://www.w3.org/2000/svg';

type Scales = { x: (v: unknown) => number; y: (v: number) => number };
type Dimensions = { width: number; height: number; marginTop: number; marginRight: number; marginBottom: number; marginLeft: number };
type Context = { document: Document };
type Attrs = Record<string, string | number>;

function maker(doc: Document) {
  return <K extends keyof SVGElementTagNameMap>(name: K, attrs: Attrs = {}, text?: string): SVGElementTagNameMap[K] => {
    const node = doc.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  };
}

const px = (v: number) => v.toFixed(1);
const setData = (el: Element, name: string, value: string | number | null | undefined) => {
  if (value !== null && value !== undefined && value !== '') setAttributeSafely(el, `data-${name}`, String(value));
};

/** A point's group at (x, y): what chart-client.ts reads back (engine, version, load, values, intervals, runs, run) as data attributes. */
function pointGroup(el: ReturnType<typeof maker>, className: string, x: number, y: number, data: Record<string, string | number | null | undefined>): SVGGElement {
  const g = el('g', { 'data-point': '', class: className, transform: `translate(${px(x)},${px(y)})` });
  for (const [name, value] of Object.entries(data)) setData(g, name, value);
  return g;
}

/** A bar from a to b along x (or y) through the point's origin, with caps. */
function bar(el: ReturnType<typeof maker>, axis: 'x' | 'y', a: number, b: number, colour: string): SVGPathElement {
  const d = axis === 'x' ? `M${px(a)},0H${px(b)}M${px(a)},-3V3M${px(b)},-3V3` : `M0,${px(a)}V${px(b)}M-3,${px(a)}H3M-3,${px(b)}H3`;
  return el('path', { class: `err err-${axis}`, d, stroke: colour, 'stroke-width': 1.25, 'stroke-opacity': 0.75, fill: 'none' });
}

/** The parts every point shares: hit area and focus ring, then its marker, inside its link. */
function pointLink(el: ReturnType<typeof maker>, href: string, label: string, first: boolean): SVGAElement {
  const link = el('a', { href, tabindex: first ? 0 : -1, 'aria-label': label });
  // One transparent rect is both the pointer target and, on focus, the visible ring (a rect, not a
  // circle, so circles stay one per marker).
  link.append(el('rect', { class: 'hit', x: -10, y: -10, width: 20, height: 20, rx: 10, fill: 'transparent' }));
  return link;
}

const runsText = (runs: number | null) => (runs === null ? '' : runs === 1 ? ', a single run (no interval)' : `, ${runs} runs`);
const withInterval = (value: number, interval: Interval | null) => `${formatNumber(value)}${interval ? ` (95% interval ${formatInterval(interval[0], interval[1])})` : ''}`;

export interface RenderedVariant {
  readonly scale: 'linear' | 'log';
  readonly markup: string;
  readonly x: PositionScale | null;
  readonly y: PositionScale | null;
}

export interface LegendEngine {
  readonly engine: string;
  readonly colour: string;
  readonly versions: readonly string[];
}

const byVersion = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

/** Engines with their colour and versions, for the legend (and its toggles). */
export function legendOf(rows: ReadonlyArray<{ engine: string; version: string }>, colours: ReadonlyMap<string, string>): LegendEngine[] {
  const versions = new Map<string, Set<string>>();
  for (const r of rows) versions.set(r.engine, (versions.get(r.engine) ?? new Set()).add(r.version));
  return [...versions.keys()].sort().map((engine) => ({ engine, colour: colours.get(engine) ?? 'currentColor', versions: [...versions.get(engine)!].sort(byVersion) }));
}

/** A domain padded so that points at its ends stay off the frame; log domains by a factor. */
function padded(values: readonly number[], type: 'linear' | 'log'): [number, number] {
  const [lo, hi] = extent(values) ?? [0, 1];
  if (type === 'log') return lo === hi ? [lo / 1.5, hi * 1.5] : [lo / Math.pow(hi / lo, 0.04), hi * Math.pow(hi / lo, 0.04)];
  if (lo === hi) return lo === 0 ? [0, 1] : [lo - Math.abs(lo) * 0.1, hi + Math.abs(hi) * 0.1];
  // Room for the load labels above the top points and the marks at either end (then niced by Plot).
  const pad = (hi - lo) * 0.04;
  return [lo >= 0 ? Math.max(0, lo - pad) : lo - pad, hi + pad];
}

export interface ParetoRender {
  readonly variants: readonly RenderedVariant[];
  readonly hasOlder: boolean;
  readonly hasIntervals: boolean;
  readonly hasSingle: boolean;
}

/**
 * The Pareto chart: linear scales, and log scales on both axes too when the values span enough
 * to need them. `base` prefixes the run links (the site's base path, without a trailing slash);
 * `per`: what y is divided by, one GPU or the whole host of a CPU lane (lanes.json throughput_per).
 */
export function renderPareto(points: readonly ParetoChartPoint[], title: string, colours: ReadonlyMap<string, string>, base: string, per: 'GPU' | 'host'): ParetoRender {
  const newest = points.filter((p) => p.latest_version);
  const older = points.filter((p) => !p.latest_version);
  const frontier = newest.filter((p) => p.on_overall_frontier);
  const xs = points.flatMap((p) => [p.interactivity, ...(p.x_interval ?? [])]);
  const ys = points.flatMap((p) => [p.throughput_per_gpu, ...(p.y_interval ?? [])]);
  const colour = (engine: string) => colours.get(engine) ?? 'currentColor';
  const ordered = [...older, ...newest];
  const seriesOf = (list: readonly ParetoChartPoint[]) => {
    const map = new Map<string, ParetoChartPoint[]>();
    for (const p of list) map.set(p.series, [...(map.get(p.series) ?? []), p]);
    return [...map.values()].map((ps) => [...ps].sort((a, b) => a.interactivity - b.interactivity));
  };
  // The keyboard's first stop: the leftmost newest point.
  const firstStop = [...(newest.length > 0 ? newest : points)].sort((a, b) => a.interactivity - b.interactivity)[0];

  const mark = (_index: unknown, scales: Scales, _values: unknown, dims: Dimensions, context: Context): SVGGElement => {
    const el = maker(context.document);
    const root = el('g', { 'data-points-layer': '' });
    const top = dims.marginTop;
    const bottom = dims.height - dims.marginBottom;
    const bound = el('g', { 'data-sla-bound': '', display: 'none', 'aria-hidden': 'true' });
    bound.append(
      el('rect', { 'data-sla-region': '', x: dims.marginLeft, y: top, width: 0, height: bottom - top, fill: 'currentColor', 'fill-opacity': 0.07 }),
      el('line', { x1: 0, x2: 0, y1: top, y2: bottom, stroke: 'currentColor', 'stroke-width': 1.5, 'stroke-dasharray': '6,4' }),
      el('text', { x: 0, y: top, dy: '0.9em', dx: -4, 'text-anchor': 'end', fill: 'currentColor', 'font-size': 11 }),
    );
    root.append(bound);
    // Lines first (older versions under the newest), each with its name at its right end.
    const lines = el('g', { 'aria-hidden': 'true' });
    for (const series of [...seriesOf(older), ...seriesOf(newest)]) {
      const first = series[0]!;
      const isNewest = first.latest_version;
      const g = el('g', { 'data-series': '', class: isNewest ? 'series newest' : 'series older' });
      setData(g, 'engine', first.engine);
      setData(g, 'version', first.engine_version);
      const d = series.map((p, i) => `${i === 0 ? 'M' : 'L'}${px(scales.x(p.interactivity))},${px(scales.y(p.throughput_per_gpu))}`).join('');
      g.append(el('path', { d, fill: 'none', stroke: colour(first.engine), 'stroke-width': isNewest ? 2.25 : 1.25, ...(isNewest ? {} : { 'stroke-opacity': 0.45, 'stroke-dasharray': '4,3' }), 'stroke-linejoin': 'round', 'stroke-linecap': 'round' }));
      const last = series[series.length - 1]!;
      g.append(
        el(
          'text',
          { x: px(scales.x(last.interactivity)), y: px(scales.y(last.throughput_per_gpu)), dx: isNewest ? 10 : 8, dy: '0.32em', 'text-anchor': 'start', 'font-size': 10, fill: 'currentColor', ...(isNewest ? { 'font-weight': 'bold' } : { 'fill-opacity': 0.65 }) },
          isNewest ? first.series : first.engine_version,
        ),
      );
      lines.append(g);
    }
    root.append(lines);
    const marks = el('g', { role: 'group', 'aria-label': `${points.length} measured points: each links to its run page` });
    for (const p of ordered) {
      const c = colour(p.engine);
      const x = scales.x(p.interactivity);
      const y = scales.y(p.throughput_per_gpu);
      const g = pointGroup(el, `pt ${p.latest_version ? 'newest' : 'older'}${p.single ? ' single' : ''}`, x, y, {
        engine: p.engine, version: p.engine_version, load: p.load, x: p.interactivity, y: p.throughput_per_gpu,
        'x-lo': p.x_interval?.[0], 'x-hi': p.x_interval?.[1], 'y-lo': p.y_interval?.[0], 'y-hi': p.y_interval?.[1], runs: p.runs, run: p.latest_run_id,
      });
      if (p.x_interval || p.y_interval) {
        const bars = el('g', { class: 'bars', 'aria-hidden': 'true' });
        if (p.x_interval) bars.append(bar(el, 'x', scales.x(p.x_interval[0]) - x, scales.x(p.x_interval[1]) - x, c));
        if (p.y_interval) bars.append(bar(el, 'y', scales.y(p.y_interval[0]) - y, scales.y(p.y_interval[1]) - y, c));
        g.append(bars);
      }
      if (p.latest_version) g.append(el('text', { class: 'load-label', y: -13, 'font-size': 10, fill: 'currentColor', 'aria-hidden': 'true' }, p.load));
      const label = `${p.series}${p.latest_version ? ' (newest)' : ''} at ${p.load}: interactivity p50 ${withInterval(p.interactivity, p.x_interval)} tok/s/user, ${withInterval(p.throughput_per_gpu, p.y_interval)} tok/s per ${per}${runsText(p.runs)}${p.on_overall_frontier ? ', on the overall frontier' : ''}`;
      const link = pointLink(el, runHref(base, p.latest_run_id), label, p === firstStop);
      if (p.on_overall_frontier) link.append(el('circle', { class: 'ring', r: 8, fill: 'none', stroke: 'currentColor', 'stroke-width': 1.5 }));
      const r = p.latest_version ? 4.5 : 3.5;
      link.append(
        el('circle', { class: 'dot', r, fill: c, stroke: c, 'stroke-width': 1.5, 'fill-opacity': p.latest_version ? 1 : 0.45, 'stroke-opacity': p.latest_version ? 1 : 0.6, ...(p.single ? { 'stroke-dasharray': '2,1.5' } : {}) }),
        el('path', { class: 'cross', d: 'M-3,-3L3,3M-3,3L3,-3', stroke: c, 'stroke-width': 1.5 }),
        el('title', {}, label),
      );
      g.append(link);
      marks.append(g);
    }
    root.append(marks);
    return root;
  };

  const variant = (scale: 'linear' | 'log'): RenderedVariant => {
    const xy = { x: 'interactivity', y: 'throughput_per_gpu' } as const;
    const rendered = renderPlotWithScales({
      ariaLabel: `${title}: throughput per ${per} against interactivity, one curve per engine version${scale === 'log' ? ', log scales' : ''}`,
      marginRight: 100,
      x: { type: scale, domain: padded(xs, scale), label: `Interactivity p50 (tokens/s per user${scale === 'log' ? ', log scale' : ''}) →`, grid: true, nice: scale === 'linear', labelArrow: 'none' },
      y: { type: scale, domain: padded(ys, scale), label: `↑ Output throughput per ${per} (tokens/s${scale === 'log' ? ', log scale' : ''})`, grid: true, nice: scale === 'linear', labelArrow: 'none' },
      marks: [
        Plot.line(frontier, { ...xy, ariaHidden: 'true', sort: 'interactivity', stroke: 'currentColor', strokeOpacity: 0.13, strokeWidth: 14, strokeLinecap: 'round', strokeLinejoin: 'round' }),
        mark as unknown as Plot.Markish,
      ],
    });
    return { scale, markup: rendered.markup, x: rendered.x, y: rendered.y };
  };
  const variants = points.length === 0 ? [] : [variant('linear'), ...(logScaleUseful([xs, ys]) ? [variant('log')] : [])];
  return { variants, hasOlder: older.length > 0, hasIntervals: points.some((p) => p.x_interval || p.y_interval), hasSingle: points.some((p) => p.single) };
}

export interface HistoryRender {
  readonly metric: HeadlineMetric;
  readonly name: string;
  readonly markup: string;
  /** The noise bands drawn, one per engine that has one: σ of log values and how many releases it was pooled from. */
  readonly noise: ReadonlyArray<{ readonly engine: string; readonly log_sd: number; readonly releases: number }>;
  readonly hasIntervals: boolean;
  readonly hasSingle: boolean;
  /** Some release drawn is not valid (docs/metrics.md#validity): drawn apart, off its engine's line. */
  readonly hasExcluded: boolean;
  readonly legend: readonly LegendEngine[];
  /** Where an engine's plotted releases change methodology, each said in a sentence (a rule on the chart marks it). */
  readonly methodologyChanges: readonly MethodologyChange[];
  /** Every release drawn, in release order (the x axis): the chart's table. */
  readonly table: readonly HistoryTableRow[];
}

/** A release of the chart as its table says it. */
export interface HistoryTableRow {
  readonly engine: string;
  readonly version: string;
  /** Its place on the x axis (1, 2, …). */
  readonly position: number;
  readonly date: string;
  readonly url: string | null;
  readonly methodology: string | null;
  readonly firstMeasured: string;
  readonly validity: Validity;
  readonly run: string;
  /** The compiled row: its value (with its interval) as every table shows one. */
  readonly row: Release;
}

/** A release row's validity; data compiled before validity existed reads as valid, as compile judged nothing then. */
export function releaseValidity(row: Readonly<Record<string, unknown>>): { validity: Validity; reason: string | null } {
  const validity = typeof row.validity === 'string' && (VALIDITY_STATUSES as readonly string[]).includes(row.validity) ? (row.validity as Validity) : 'valid';
  return { validity, reason: validity !== 'valid' && typeof row.validity_reason === 'string' ? row.validity_reason : null };
}

/** The grey of an excluded release where no stylesheet applies (charts.css takes the page's muted colour). */
const EXCLUDED_GREY = '#6e7781';

/**
 * Each bisection of this metric at this load, on the chart it explains: a shaded span from the
 * measured release at its older end to the one at its newer end (the releases between them were
 * built and compared by the bisection, not measured here) and a dashed rule at the newer end,
 * labelled, its full sentence in its title.
 */
function bisectionMarks(el: ReturnType<typeof maker>, scales: Scales, dims: Dimensions, rows: ReadonlyArray<{ engine: string; version: string; index: number }>, bisections: readonly BisectionRow[], metricLabel: string): SVGGElement {
  const group = el('g', { class: 'bisections' });
  for (const b of bisections) {
    const measured = (candidates: ReadonlyArray<string | null>) => rows.find((r) => r.engine === b.engine && candidates.includes(r.version));
    const newer = measured([b.range_bad_tag, b.range_bad]) ?? measured([b.bad_tag, b.bad]);
    const older = measured([b.range_good_tag, b.range_good]) ?? measured([b.good_tag, b.good]);
    if (newer === undefined) continue;
    const [top, bottom] = [dims.marginTop, dims.height - dims.marginBottom];
    const x1 = scales.x(newer.index);
    const x0 = older === undefined ? x1 : scales.x(older.index);
    const mark = el('g', { class: 'bisection', 'data-bisection': b.file });
    if (x0 < x1) mark.append(el('rect', { x: px(x0), y: px(top), width: px(x1 - x0), height: px(bottom - top), fill: 'currentColor', 'fill-opacity': 0.06 }));
    mark.append(el('line', { x1: px(x1), x2: px(x1), y1: px(top), y2: px(bottom), stroke: 'currentColor', 'stroke-dasharray': '4,3', 'stroke-width': 1 }));
    mark.append(el('text', { x: px(x1 - 4), y: px(top + 10), 'text-anchor': 'end', 'font-size': 10, fill: 'currentColor' }, b.outcome === 'not reproducible' ? 'bisected: not reproducible' : 'bisected'));
    mark.append(el('title', {}, `${bisectionHeadline(b, metricLabel)}; ${bisectionMethod(b)}`));
    group.append(mark);
  }
  return group;
}

/**
 * Each change of methodology between an engine's consecutive releases: a solid rule between the two
 * (on the release itself when it was measured under both), labelled, its sentence in its title.
 */
function methodologyMarks(el: ReturnType<typeof maker>, scales: Scales, dims: Dimensions, changes: readonly MethodologyChange[]): SVGGElement {
  const group = el('g', { class: 'methodology-changes' });
  const [top, bottom] = [dims.marginTop, dims.height - dims.marginBottom];
  for (const c of changes) {
    const x = scales.x((c.from.index + c.to.index) / 2);
    const mark = el('g', { class: 'methodology-change', 'data-methodology-from': c.from.methodology, 'data-methodology-to': c.to.methodology, 'data-engine': c.engine });
    mark.append(el('line', { x1: px(x), x2: px(x), y1: px(top), y2: px(bottom), stroke: 'currentColor', 'stroke-width': 1.5 }));
    mark.append(el('text', { x: px(x + 4), y: px(bottom - 6), 'text-anchor': 'start', 'font-size': 10, fill: 'currentColor' }, `methodology ${c.to.methodology}`));
    mark.append(el('title', {}, c.text));
    group.append(mark);
  }
  return group;
}

/** The plot's width less its margins (static-plot.ts DEFAULTS, the history chart's right margin): what the release slots share. */
const HISTORY_PLOT_WIDTH = 760 - 60 - 44;
/** Narrower slots than this turn their two-line labels into one rotated line. */
const WIDE_SLOT = 76;

/**
 * One history chart: a metric by release at one load, the releases in release order on x (each
 * engine's versions in version order, engines interleaved by the day each was published:
 * release-axis.ts), each tick the release's version and published day (releases measured on one
 * day no longer stack); each release's interval as bars, and around each engine's line that
 * engine's noise band on this hardware at this load. Releases measured under different
 * methodologies get a line each, with a rule where the methodology changed. A release that is not
 * valid is drawn as a grey open dot with its status beside its version and its reason in its title,
 * and is left out of its engine's line and band: a line joins only releases that may be compared,
 * so an invalid one never reads as a change. Null when no release has a value.
 */
export function renderHistory(history: readonly Release[], load: string, metric: HeadlineMetric, noise: readonly NoiseRow[] | undefined, colours: ReadonlyMap<string, string>, base: string, bisections: readonly BisectionRow[] = []): HistoryRender | null {
  const drawn = history.filter((r) => r.load === load && typeof r[metric.column] === 'number' && Number.isFinite(r[metric.column]));
  const slots = releaseSlots(drawn);
  const slotOf = new Map(slots.map((s) => [slotKey(s.engine, s.version), s]));
  const methodologies = new Set(drawn.map((r) => (typeof r.methodology === 'string' ? r.methodology : '')));
  const rows = drawn.map((r) => {
    const value = r[metric.column] as number;
    const runs = runsOf(r);
    const slot = slotOf.get(slotKey(r.engine, r.engine_version))!;
    const methodology = typeof r.methodology === 'string' ? r.methodology : null;
    return { source: r, engine: r.engine, version: r.engine_version, load: r.load, hardware: String(r.hardware ?? ''), index: slot.index, released: releaseDateLabel(slot.date), url: slot.url, methodology, day: r.first_run_date, value, runs, single: runs === 1, interval: intervalOf(r, metric.column), run: r.latest_run_id, ...releaseValidity(r) };
  });
  if (rows.length === 0) return null;
  const changes = methodologyChanges(rows.flatMap((r) => (r.methodology === null ? [] : [{ engine: r.engine, version: r.version, methodology: r.methodology, index: r.index }])));
  const name = `${metric.label} (${metric.unit})`;
  const colour = (engine: string) => colours.get(engine) ?? 'currentColor';
  const engines = [...new Set(rows.map((r) => r.engine))].sort();
  // Each engine's own noise on this hardware at this load: one engine's noise never widens another's band.
  const noiseByEngine = new Map(engines.flatMap((engine) => {
    const row = rows.find((r) => r.engine === engine)!;
    const n = noiseOf(noise, metric.column, engine, row.hardware, load);
    return n ? [[engine, n] as const] : [];
  }));
  const band = (engine: string, v: number) => {
    const n = noiseByEngine.get(engine);
    return n ? noiseBand(v, n.log_sd) : null;
  };
  // Lines and bands through each engine's valid releases only, one per methodology: no line crosses a methodology change.
  const byEngine = engines.flatMap((engine) => [...methodologies].sort().map((m) => rows.filter((r) => r.engine === engine && (r.methodology ?? '') === m && r.validity === 'valid').sort((a, b) => a.index - b.index))).filter((series) => series.length > 0);
  const ys = rows.flatMap((r) => [r.value, ...(r.interval ?? []), ...(band(r.engine, r.value) ?? [])]);
  const [y0, y1] = extent(ys)!;
  const firstStop = [...rows].sort((a, b) => a.index - b.index || a.engine.localeCompare(b.engine))[0];
  // Two lines (version, day) under each release where there is room, else one line turned aside.
  const wide = HISTORY_PLOT_WIDTH / slots.length >= WIDE_SLOT;
  const tickLabel = (i: number) => {
    const s = slots[i];
    return s === undefined ? '' : `${s.version}${wide ? '\n' : ' · '}${releaseDateLabel(s.date)}`;
  };

  const mark = (_index: unknown, scales: Scales, _values: unknown, dims: Dimensions, context: Context): SVGGElement => {
    const el = maker(context.document);
    const root = el('g', { 'data-points-layer': '' });
    const lines = el('g', { 'aria-hidden': 'true' });
    for (const series of byEngine) {
      const engine = series[0]!.engine;
      const g = el('g', { 'data-series': '', class: 'series' });
      setData(g, 'engine', engine);
      setData(g, 'methodology', series[0]!.methodology);
      if (noiseByEngine.has(engine)) {
        const at = series.map((r) => ({ x: scales.x(r.index), band: band(engine, r.value)! }));
        // A release alone still gets a band: a short one, so it can be seen.
        const xsOf = at.length === 1 ? [at[0]!.x - 8, at[0]!.x + 8] : at.map((a) => a.x);
        const bands = at.length === 1 ? [at[0]!.band, at[0]!.band] : at.map((a) => a.band);
        const upper = xsOf.map((x, i) => `${i === 0 ? 'M' : 'L'}${px(x)},${px(scales.y(bands[i]![1]))}`).join('');
        const lower = [...xsOf].reverse().map((x, i) => `L${px(x)},${px(scales.y(bands[bands.length - 1 - i]![0]))}`).join('');
        g.append(el('path', { class: 'noise-band', d: `${upper}${lower}Z`, fill: colour(engine), 'fill-opacity': 0.16, stroke: 'none' }));
      }
      g.append(el('path', { class: 'line', d: series.map((r, i) => `${i === 0 ? 'M' : 'L'}${px(scales.x(r.index))},${px(scales.y(r.value))}`).join(''), fill: 'none', stroke: colour(engine), 'stroke-width': 1.5 }));
      lines.append(g);
    }
    root.append(lines);
    root.append(methodologyMarks(el, scales, dims, changes));
    root.append(bisectionMarks(el, scales, dims, rows, bisections.filter((b) => b.metric === metric.column && b.load === load), metric.label));
    const marks = el('g', { role: 'group', 'aria-label': `${rows.length} releases: each links to its latest run` });
    for (const r of rows) {
      const excluded = r.validity !== 'valid';
      const c = excluded ? EXCLUDED_GREY : colour(r.engine);
      const x = scales.x(r.index);
      const y = scales.y(r.value);
      const b = excluded ? null : band(r.engine, r.value);
      const g = pointGroup(el, `pt${r.single ? ' single' : ''}${excluded ? ' excluded' : ''}`, x, y, {
        engine: r.engine, version: r.version, load: r.load, y: r.value, 'y-lo': r.interval?.[0], 'y-hi': r.interval?.[1], runs: r.runs, run: r.run, date: r.day, 'band-lo': b?.[0], 'band-hi': b?.[1],
        validity: r.validity, 'validity-reason': r.reason, released: r.released, 'release-url': r.url, position: r.index + 1,
        // Said only where the chart holds more than one methodology.
        methodology: methodologies.size > 1 ? r.methodology : null,
      });
      if (r.interval) {
        const bars = el('g', { class: 'bars', 'aria-hidden': 'true' });
        bars.append(bar(el, 'y', scales.y(r.interval[0]) - y, scales.y(r.interval[1]) - y, c));
        g.append(bars);
      }
      // The version right of the point, clear of its bar, at the point's height (so labels read in the values' order).
      const status = excluded ? VALIDITY_LABELS[r.validity] : null;
      g.append(el('text', { class: 'version-label', x: 8, dy: '0.32em', 'text-anchor': 'start', 'font-size': 10, fill: excluded ? c : 'currentColor', 'aria-hidden': 'true' }, status ? `${r.version} (${status})` : r.version));
      const why = status ? `; excluded, ${status}${r.reason ? ` (${r.reason})` : ''}: not joined into the line, never compared` : '';
      const label = `${r.engine} ${r.version} at ${r.load}, released ${r.released}, first measured ${r.day}${methodologies.size > 1 && r.methodology ? `, methodology ${r.methodology}` : ''}: ${metric.label} ${withInterval(r.value, r.interval)} ${metric.unit}${runsText(r.runs)}${why}`;
      const link = pointLink(el, runHref(base, r.run), label, r === firstStop);
      // An excluded release: an open grey dot, so it never reads as one of its engine's measured steps.
      link.append(el('circle', { class: 'dot', r: 4, fill: excluded ? 'none' : c, stroke: c, 'stroke-width': 1.5, ...(r.single ? { 'stroke-dasharray': '2,1.5' } : {}) }), el('title', {}, label));
      g.append(link);
      marks.append(g);
    }
    root.append(marks);
    return root;
  };

  const rendered = renderPlotWithScales({
    ariaLabel: `${name} by release at ${load}, ${directionWords(metric.better)}`,
    // Right margin and half a slot at either end: the releases' version labels (right of each point) stay clear of the axes.
    marginRight: 44,
    marginBottom: wide ? 54 : 100,
    x: {
      label: 'Release, in release order (version and day published) →',
      type: 'linear',
      domain: [-0.5, slots.length - 0.5],
      ticks: slots.map((s) => s.index),
      tickFormat: tickLabel,
      ...(wide ? {} : { tickRotate: -40 }),
      labelArrow: 'none',
      labelOffset: wide ? 50 : 96,
    },
    y: { label: `${name} · ${directionArrow(metric.better)} ${directionWords(metric.better)}`, domain: [Math.min(0, y0), Math.max(0, y1)], grid: true, nice: true, labelArrow: 'none' },
    marks: [mark as unknown as Plot.Markish],
  });
  return {
    metric,
    name,
    markup: rendered.markup,
    noise: [...noiseByEngine].map(([engine, n]) => ({ engine, log_sd: n.log_sd, releases: n.releases })),
    hasIntervals: rows.some((r) => r.interval !== null),
    hasSingle: rows.some((r) => r.single),
    hasExcluded: rows.some((r) => r.validity !== 'valid'),
    legend: legendOf(rows, colours),
    methodologyChanges: changes,
    table: [...rows]
      .sort((a, b) => a.index - b.index || compareMethodology(a.methodology ?? '', b.methodology ?? ''))
      .map((r) => ({ engine: r.engine, version: r.version, position: r.index + 1, date: r.released, url: r.url, methodology: r.methodology, firstMeasured: r.day, validity: r.validity, run: r.run, row: r.source })),
  };
}
