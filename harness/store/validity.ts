/**
 * Validity, compile side (docs/metrics.md#validity): one status per point, derived from what the
 * point and its run recorded, so results written before the status existed are judged by the same
 * rule (result files are immutable; the status is never stored in them).
 *
 *   invalid_output        the run's output-fidelity probe failed against its reference
 *                         (fidelity_verdict 'fail'), or its greedy outputs differed with the
 *                         prefix cache on and off (cache_equality 'differs')
 *   cache_mismatch        the point's cache audit: observed reuse below the audit's fraction of theory
 *   overloaded            an open-loop point that fell behind its schedule
 *   insufficient_samples  not one headline percentile has the sample the sufficiency rule asks
 *                         (contract/sufficiency.ts): the point has nothing to rank. A point with
 *                         some supported percentiles stays valid: it is ranked on those, and the
 *                         others are null in published_points (published-values.ts)
 *   valid                 none of the above
 * The first that applies wins (contract/validity.ts gives the order and why). Null inputs (no probe,
 * no reference, no audit, a closed loop) mean "not checked", never invalid.
 *
 * Every statistic reads the release rows through VALID_RELEASE_SQL: invalid points are shown, never
 * ranked, compared, pooled into noise, judged against an SLA tier or drawn on a Pareto frontier.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import { MIN_SAMPLES, percentileColumn, sampleCountColumn } from '../contract/sufficiency.ts';
import { VALIDITY_STATUSES, type Validity } from '../contract/validity.ts';
import { columnOf } from './columns.ts';

/** The run-level verdicts of the output-fidelity probe, as SQL over one point row (null: not checked). */
export interface FidelityInputs {
  readonly verdict: string;
  readonly equality: string;
  /** The join that brings them to a point row (`p`), or '' when compile has no such columns. */
  readonly join: string;
}

const RUN_FIDELITY_COLUMNS = ['fidelity_verdict', 'cache_equality'] as const;

/**
 * Where the probe's verdicts are: run columns of valid_runs (compile's fidelity step), when that
 * step has run; otherwise every point reads them as null (not checked).
 */
export async function fidelityInputs(connection: DuckDBConnection): Promise<FidelityInputs> {
  const present = new Set(
    (await connection.runAndReadAll(`SELECT column_name FROM duckdb_columns() WHERE table_name = 'valid_runs' AND column_name IN (${RUN_FIDELITY_COLUMNS.map((c) => `'${c}'`).join(', ')})`)).getRowsJS().map(([name]) => String(name)),
  );
  if (present.size === 0) return { verdict: 'NULL', equality: 'NULL', join: '' };
  const pick = (c: string) => (present.has(c) ? `validity_run.${c}` : 'NULL');
  return {
    verdict: pick('fidelity_verdict'),
    equality: pick('cache_equality'),
    join: `LEFT JOIN (SELECT file AS validity_file, ${[...present].join(', ')} FROM valid_runs) validity_run ON validity_run.validity_file = p.file`,
  };
}

/**
 * A digest of every run's fidelity verdicts: a verdict can change without its run changing (a
 * reference run arrives later), so the release cache must be rebuilt when this does (derive.ts).
 * Runs with neither verdict are left out: a new run without one changes only its own version's
 * release, which ingest marks for rebuilding, so it must not rebuild every release (at 100,000
 * files that was most of an incremental compile).
 */
export async function fidelityStateDigest(connection: DuckDBConnection, fidelity: FidelityInputs): Promise<string> {
  if (fidelity.join === '') return 'none';
  const sql = `SELECT coalesce(md5(string_agg(concat_ws('|', p.file, ${fidelity.verdict}, ${fidelity.equality}), ',' ORDER BY p.file)), 'none') FROM (SELECT file FROM valid_runs) p ${fidelity.join} WHERE ${fidelity.verdict} IS NOT NULL OR ${fidelity.equality} IS NOT NULL`;
  return String((await connection.runAndReadAll(sql)).getRowsJS()[0]![0]);
}

/** The headline percentiles (ttft_ms_p50, …) and the count column each rests on. */
const HEADLINE_PERCENTILES = HEADLINE_METRICS.flatMap((m) => {
  const parsed = percentileColumn(m.column);
  return parsed === null ? [] : [{ column: m.column, count: sampleCountColumn(m.column)!, minimum: MIN_SAMPLES[parsed.stat] }];
});

/** SQL over a point row (`p`): true when no headline percentile is supported by its sample (a missing count supports none). */
export function nothingToRankSql(): string {
  return `NOT (${HEADLINE_PERCENTILES.map((h) => `coalesce(p.${columnOf(h.count)} >= ${h.minimum}, false)`).join(' OR ')})`;
}

/** Each status's condition over a point row (`p`) and the words that say why, in precedence order. */
function rules(fidelity: FidelityInputs): ReadonlyArray<{ status: Exclude<Validity, 'valid'>; when: string; reason: string }> {
  const pct = (c: string) => `printf('%.0f%%', 100 * p.${c})`;
  return [
    { status: 'invalid_output', when: `${fidelity.verdict} = 'fail'`, reason: `'outputs differ from the reference engine version (output-fidelity probe failed)'` },
    { status: 'invalid_output', when: `${fidelity.equality} = 'differs'`, reason: `'greedy outputs differ with the prefix cache on and off'` },
    {
      status: 'cache_mismatch',
      when: `p.cache_verdict = 'cache_mismatch'`,
      reason: `'the server reused ' || coalesce(${pct('cache_observed')}, 'an unknown share') || ' of the prompt tokens where a perfect prefix cache reuses ' || coalesce(${pct('cache_theoretical')}, 'more')`,
    },
    { status: 'overloaded', when: `coalesce(p.overloaded, false)`, reason: `coalesce(p.overload_reason, 'fell behind its schedule')` },
    {
      status: 'insufficient_samples',
      when: nothingToRankSql(),
      reason: `'too few samples for any headline percentile (' || coalesce(p.completed, 0) || ' completed requests; a median needs ${MIN_SAMPLES.p50})'`,
    },
  ];
}

/** The two columns compile adds to every point: `validity` and `validity_reason` (null when valid). */
export function validityColumnsSql(fidelity: FidelityInputs): string {
  const all = rules(fidelity);
  // Stryker disable next-line StringLiteral: the join's space is layout: DuckDB reads 'x'WHEN and )WHEN as 'x' WHEN and ) WHEN
  const status = `CASE ${all.map((r) => `WHEN ${r.when} THEN '${r.status}'`).join(' ')} ELSE 'valid' END AS validity`;
  // Stryker disable next-line StringLiteral: the join's space is layout: DuckDB reads )WHEN and 'x'WHEN as ) WHEN and 'x' WHEN
  const reason = `CASE ${all.map((r) => `WHEN ${r.when} THEN ${r.reason}`).join(' ')} END AS validity_reason`;
  return `${status}, ${reason}`;
}

/** SQL: a status's place in the precedence (0 first). */
function precedenceSql(column: string): string {
  // Stryker disable next-line StringLiteral: the join's space is layout: DuckDB reads THEN 0WHEN as THEN 0 WHEN
  return `CASE ${column} ${VALIDITY_STATUSES.map((s, i) => `WHEN '${s}' THEN ${i}`).join(' ')} END`;
}

/**
 * A release's validity: its runs are repeats of one configuration, so one invalid point makes the
 * release invalid, with the first status (by precedence) among its points and that point's reason,
 * and how many of its points were invalid.
 */
export function releaseValiditySql(): string {
  return [
    `arg_min(validity, ${precedenceSql('validity')}) AS validity`,
    `arg_min(validity_reason, ${precedenceSql('validity')}) AS validity_reason`,
    `(count(*) FILTER (WHERE validity <> 'valid'))::INTEGER AS invalid_points`,
  ].join(',\n      ');
}

/** SQL over a release row: the one condition every ranking, delta, noise pool, capacity tier and frontier reads. */
export const VALID_RELEASE_SQL = `validity = 'valid'`;

/** Dictionary lines of the release columns above (dictionary.ts). */
export function describeValidityColumn(name: string): { unit: string | null; description: string } | null {
  if (name === 'validity') return { unit: null, description: `The first status, by precedence (${VALIDITY_STATUSES.join(' > ')}), among the release's points; any but valid: shown, never ranked, compared, pooled or used as a baseline (docs/metrics.md#validity)` };
  if (name === 'validity_reason') return { unit: null, description: 'Why validity is not valid, in words; null when valid' };
  if (name === 'invalid_points') return { unit: 'points', description: "The release's points (one per run) whose validity is not valid" };
  return null;
}
