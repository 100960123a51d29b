/**
 * The SLA limits on the Pareto chart, in the browser without Plot: the chart is prerendered SVG
 * whose points carry (engine, version, load) and whose figure carries the x scale, so marking
 * the points that fail and placing the TPOT bound is attribute and text work only.
 *
 * Why the TPOT limit is a bound and not a line "at the limit": x is interactivity p50 (the
 * geometric mean over runs of each run's p50 of 1000 / TPOT per request) and the SLA limits TPOT
 * p95. No value of x maps to a TPOT p95. What does hold: with linear-interpolated percentiles,
 * p50(1000/TPOT) ≥ 1000 / p50(TPOT) (1/t is convex and decreasing), and a geometric mean over runs
 * keeps the inequality (it is monotone, and the geometric mean of 1000/tᵢ is 1000 over that of
 * tᵢ), so x < 1000 / Y implies TPOT p50 > Y, hence TPOT p95 > Y. Left of x = 1000 / Y every point fails
 * the limit; right of it a point may pass or fail, which its mark says. (Requests whose TPOT is
 * exactly 0 have no interactivity and are left out of it; the bound assumes they are rare.)
 */
import { formatNumber } from './format.ts';
import { SLA_METRICS, type SlaColumn } from './sla-query.ts';

export type Limits = Partial<Record<SlaColumn, number>>;

/** The medians of one engine version at one load point, as the SLA filter reads them. */
export type PointMedians = { readonly engine: string; readonly engine_version: string; readonly load: string } & { readonly [K in SlaColumn]: number | null };

export interface Failure {
  readonly label: string;
  readonly unit: string;
  /** null: not measured, which cannot be shown to meet a limit. */
  readonly value: number | null;
  readonly limit: number;
}

/**
 * The medians of every engine version at every load point of one scenario, from the table the
 * SLA filter materializes (releasesSql). One `?`: the scenario id.
 */
export function pointMediansSql(): string {
  return `SELECT engine, engine_version, load, ${SLA_METRICS.map((m) => m.column).join(', ')} FROM sla_releases WHERE scenario_id = ?::VARCHAR`;
}

/** The limits a point fails; empty when it meets them all. Only limits that are set count. */
export function failures(point: PointMedians, limits: Limits): Failure[] {
  const failed: Failure[] = [];
  for (const m of SLA_METRICS) {
    const limit = limits[m.column];
    if (limit === undefined) continue;
    const value = point[m.column];
    if (value === null || !Number.isFinite(value) || value > limit) failed.push({ label: m.label, unit: m.unit, value: value === null || !Number.isFinite(value) ? null : value, limit });
  }
  return failed;
}

/** "TTFT p99 2,345 ms > 2,000 ms; ITL p99 not measured" */
export function describeFailures(failed: readonly Failure[]): string {
  return failed.map((f) => (f.value === null ? `${f.label} not measured` : `${f.label} ${formatNumber(f.value)} ${f.unit} > ${formatNumber(f.limit)} ${f.unit}`)).join('; ');
}

/** Interactivity (tok/s/user) below which a TPOT p95 limit of `limits.tpot_ms_p95` ms surely fails; null when no TPOT limit is set. */
export function tpotBound(limits: Limits): number | null {
  const limit = limits.tpot_ms_p95;
  return limit === undefined || !(limit > 0) ? null : 1000 / limit;
}

export const pointKey = (engine: string, version: string, load: string): string => JSON.stringify([engine, version, load]);

/** Maps a value through a scale given as "d0 d1" and "r0 r1" (the figure's data attributes): linear, or log when `type` says so. */
export function project(value: number, domain: readonly number[], range: readonly number[], type: 'linear' | 'log' = 'linear'): number {
  const [d0, d1] = domain as [number, number];
  const [r0, r1] = range as [number, number];
  if (type === 'log') {
    const [l0, l1, lv] = [Math.log(d0), Math.log(d1), Math.log(value)];
    return l1 === l0 ? r0 : r0 + ((lv - l0) / (l1 - l0)) * (r1 - r0);
  }
  return d1 === d0 ? r0 : r0 + ((value - d0) / (d1 - d0)) * (r1 - r0);
}

const numbers = (text: string | undefined): number[] => (text ?? '').split(' ').map(Number);

/**
 * Marks the Pareto chart and its table: `medians` null (or no limits) clears every mark.
 * Text only: engine names and versions are data, never markup.
 */
export function markPareto(doc: Document, medians: readonly PointMedians[] | null, limits: Limits): void {
  const figure = doc.querySelector<HTMLElement>('figure[data-chart="pareto"]');
  const table = doc.querySelector<HTMLTableElement>('table[data-pareto-table]');
  const active = medians !== null && Object.keys(limits).length > 0;
  const verdicts = new Map<string, Failure[]>();
  if (active) for (const m of medians) verdicts.set(pointKey(m.engine, m.engine_version, m.load), failures(m, limits));
  // A point the points file does not have cannot be judged: say so rather than pass it.
  const verdict = (el: HTMLElement | SVGElement) => verdicts.get(pointKey(el.dataset.engine ?? '', el.dataset.version ?? '', el.dataset.load ?? ''));

  if (figure) {
    for (const point of figure.querySelectorAll<SVGGElement>('g[data-point]')) {
      const failed = active ? verdict(point) : undefined;
      if (!active) point.removeAttribute('data-sla');
      else point.setAttribute('data-sla', failed === undefined || failed.length > 0 ? 'fail' : 'pass');
    }
    figure.dataset.sla = active ? 'on' : 'off';
    const bound = active ? tpotBound(limits) : null;
    if (bound === null) delete figure.dataset.tpotLimit;
    else figure.dataset.tpotLimit = String(limits.tpot_ms_p95);
    layoutParetoOverlay(figure);
  }
  if (table) {
    for (const row of table.tBodies[0]?.rows ?? []) {
      const cell = row.querySelector<HTMLElement>('td[data-sla-cell]');
      if (!cell) continue;
      if (!active) {
        cell.textContent = '–';
        cell.dataset.value = '';
        continue;
      }
      const failed = verdict(row);
      cell.textContent = failed === undefined ? 'no: not in the points file' : failed.length === 0 ? 'yes' : `no: ${describeFailures(failed)}`;
      cell.dataset.value = failed !== undefined && failed.length === 0 ? 'yes' : 'no';
    }
  }
}

/**
 * Draws what the marks on the points imply: the TPOT bound at the figure's current x scale
 * (`data-x-scale`, `data-x-domain`, `data-x-range`: linear or log, whichever variant is shown),
 * the key and the note. Run again whenever the chart's scales change (chart-client.ts does, on
 * switching to log scales), after the points carry their `data-sla` marks.
 */
export function layoutParetoOverlay(figure: HTMLElement): void {
  const active = figure.dataset.sla === 'on';
  const points = [...figure.querySelectorAll<SVGGElement>('g[data-point]')];
  const total = active ? points.filter((p) => p.hasAttribute('data-sla')).length : 0;
  const failing = active ? points.filter((p) => p.getAttribute('data-sla') === 'fail').length : 0;
  const limit = Number(figure.dataset.tpotLimit);
  const bound = active && figure.dataset.tpotLimit !== undefined ? tpotBound({ tpot_ms_p95: limit }) : null;
  const group = figure.querySelector<SVGGElement>('g[data-sla-bound]');
  const note = figure.querySelector<HTMLElement>('[data-pareto-sla-note]');
  let boundText = '';
  let drawn = false;
  if (group && bound !== null) {
    const domain = numbers(figure.dataset.xDomain);
    const range = numbers(figure.dataset.xRange);
    const type = figure.dataset.xScale === 'log' ? 'log' : 'linear';
    const lo = Math.min(domain[0]!, domain[1]!);
    const hi = Math.max(domain[0]!, domain[1]!);
    const known = [...domain, ...range].length === 4 && [...domain, ...range].every(Number.isFinite) && (type === 'linear' || lo > 0);
    drawn = known && bound >= lo && bound <= hi;
    const y = formatNumber(limit);
    const at = `interactivity p50 = ${formatNumber(bound)} tok/s/user (1000 ÷ ${y} ms)`;
    if (drawn) {
      const x = project(bound, domain, range, type);
      const left = Math.min(range[0]!, range[1]!);
      for (const line of group.querySelectorAll('line')) {
        line.setAttribute('x1', x.toFixed(1));
        line.setAttribute('x2', x.toFixed(1));
      }
      const region = group.querySelector('rect');
      region?.setAttribute('x', left.toFixed(1));
      region?.setAttribute('width', Math.max(0, x - left).toFixed(1));
      // The label sits on the side with more room, so it stays inside the plot.
      const label = group.querySelector('text')!;
      const roomLeft = x - left > Math.max(range[0]!, range[1]!) - x;
      label.setAttribute('x', x.toFixed(1));
      label.setAttribute('dx', roomLeft ? '-4' : '4');
      label.setAttribute('text-anchor', roomLeft ? 'end' : 'start');
      label.textContent = `← ${roomLeft ? '' : 'left of this line '}fails TPOT p95 ≤ ${y} ms`;
      boundText = ` The dashed line is the TPOT bound, ${at}: a point left of it has a median TPOT above ${y} ms, so its TPOT p95 is above the limit too; a point right of it can still fail, as its mark says.`;
    } else if (!known) boundText = ` The TPOT bound is ${at}: a point left of it fails the TPOT limit.`;
    else if (bound > hi) boundText = ` The TPOT bound, ${at}, lies right of the chart: every point has a median TPOT above ${y} ms, so every point fails the TPOT limit.`;
    else boundText = ` The TPOT bound, ${at}, lies left of the chart: it rules out no point; each point's mark says whether its TPOT p95 meets the limit.`;
  }
  if (drawn) group?.removeAttribute('display');
  else group?.setAttribute('display', 'none');
  for (const key of figure.querySelectorAll<HTMLElement>('[data-sla-key]')) key.hidden = !active || (key.dataset.slaKey === 'bound' && !drawn);
  if (note) {
    note.hidden = !active;
    note.textContent = active ? `${total - failing} of ${total} points meet the SLA limits; the other ${failing} are drawn hollow with a cross.${boundText}` : '';
  }
}
