/**
 * The SLA filter's input embedded in the scenario page: the scenario's official, valid release
 * values (the rows of releasesSql's table) with only what the filter reads, built at build time
 * from the history the page already renders (site/lib/data.ts: the compiled values, never
 * recomputed). A few hundred rows at fleet scale, a few KB compressed: the first answer needs
 * no download and no DuckDB-Wasm (sla-answer.ts evaluates it).
 */
import { SLA_METRICS, type SlaColumn } from './sla-query.ts';
import type { PointMedians } from './pareto-sla.ts';

/** One release (engine version) at one load point, as the SLA filter judges it. */
export type SlaPoint = PointMedians & {
  /** Dense rank of the version among the engine's versions in the scenario (engine_version_order, ascending from 0): the newest has the largest. */
  readonly version_rank: number;
  readonly throughput: number | null;
};

/** The page's JSON: one array per point, [engine, version, version rank, load, throughput, ...SLA_METRICS' values]. */
type Encoded = Array<[string, string, number, string, number | null, ...Array<number | null>]>;

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * The points of one scenario from its history rows (scenarioDetail(id).history, or any rows
 * with the release columns): official and valid only, as releasesSql keeps them. The version
 * rank is the dense rank of engine_version_order (compile's sort key of a version), so versions
 * that sort equal share it, as in the SQL.
 */
export function slaPoints(history: ReadonlyArray<Readonly<Record<string, unknown>>>): SlaPoint[] {
  const kept = history.filter((h) => h.official === true && h.validity === 'valid');
  const keys = new Map<string, Set<string>>();
  for (const h of kept) (keys.get(String(h.engine)) ?? keys.set(String(h.engine), new Set()).get(String(h.engine))!).add(String(h.engine_version_order));
  // Plain string order is version order (version-order.ts), as the SQL's ORDER BY compares them.
  const ranks = new Map([...keys].map(([engine, set]) => [engine, new Map([...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((key, i) => [key, i]))]));
  return kept.map((h) => {
    const engine = String(h.engine);
    const metrics = Object.fromEntries(SLA_METRICS.map((m) => [m.column, numberOrNull(h[m.column])])) as Record<SlaColumn, number | null>;
    return { engine, engine_version: String(h.engine_version), version_rank: ranks.get(engine)!.get(String(h.engine_version_order))!, load: String(h.load), throughput: numberOrNull(h.output_throughput), ...metrics };
  });
}

/** The JSON the page embeds (in a <script type="application/json">: `<` escaped so no value can end the script). */
export function encodeSlaPoints(points: readonly SlaPoint[]): string {
  const rows: Encoded = points.map((p) => [p.engine, p.engine_version, p.version_rank, p.load, p.throughput, ...SLA_METRICS.map((m) => p[m.column])]);
  return JSON.stringify(rows).replace(/</g, '\\u003c');
}

/** The points back from the page's JSON. */
export function decodeSlaPoints(json: string): SlaPoint[] {
  return (JSON.parse(json) as Encoded).map(([engine, engine_version, version_rank, load, throughput, ...values]) => ({
    engine,
    engine_version,
    version_rank,
    load,
    throughput,
    ...(Object.fromEntries(SLA_METRICS.map((m, i) => [m.column, values[i] ?? null])) as Record<SlaColumn, number | null>),
  }));
}
