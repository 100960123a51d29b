/**
 * Regressions: significant changes for the worse of at least `threshold` percent between an
 * engine's newest release and its previous one on the same configuration (deltas from derive.ts).
 * Each has a key that stays the same for the same regression, so alerting files it once.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Delta, Regression } from '../contract/site-data.ts';
import { HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import { escapeTableCell, significant } from '../lib/io/markdown.ts';

export type { Regression };

function regressionKey(d: Pick<Delta, 'engine' | 'previous_version' | 'version' | 'config_id' | 'metric'>): string {
  return createHash('sha256').update([d.engine, d.previous_version, d.version, d.config_id, d.metric].join('|')).digest('hex').slice(0, 16);
}

/**
 * The result file of each run a delta names (run id → path under results/): only those, since
 * reading every run's file name into memory was a tenth of an incremental compile at 100,000 files.
 */
export async function filesOfDeltaRuns(connection: DuckDBConnection, deltas: readonly Delta[]): Promise<Map<string, string>> {
  await connection.run('CREATE OR REPLACE TEMP TABLE delta_runs (run_id VARCHAR)');
  const appender = await connection.createAppender('delta_runs');
  for (const d of deltas) for (const id of [d.run_id, d.previous_run_id]) (appender.appendVarchar(id), appender.endRow());
  appender.closeSync();
  const rows = (await connection.runAndReadAll('SELECT run_id, file FROM valid_runs WHERE run_id IN (SELECT run_id FROM delta_runs)')).getRowsJS() as Array<[string, string]>;
  return new Map(rows);
}

export function findRegressions(deltas: readonly Delta[], thresholdPct: number, files: ReadonlyMap<string, string>): Regression[] {
  return deltas
    .filter((d) => d.verdict === 'worse' && Math.abs(d.change_pct) >= thresholdPct)
    .map((d) => ({ ...d, key: regressionKey(d), previous_file: files.get(d.previous_run_id) ?? null, file: files.get(d.run_id) ?? null }))
    .sort((a, b) => a.engine.localeCompare(b.engine) || a.model.localeCompare(b.model) || a.hardware.localeCompare(b.hardware) || a.workload.localeCompare(b.workload) || a.load.localeCompare(b.load) || a.metric.localeCompare(b.metric));
}

/** A GitHub issue body: one table per engine and version pair. */
export function regressionsMarkdown(regressions: readonly Regression[], link: (file: string | null, runId: string) => string): string {
  if (regressions.length === 0) return 'No regressions.\n';
  const labels = new Map(HEADLINE_METRICS.map((m) => [m.column, `${m.label} (${m.unit})`]));
  const groups = new Map<string, Regression[]>();
  for (const r of regressions) groups.set(`${r.engine} ${r.previous_version} → ${r.version}`, [...(groups.get(`${r.engine} ${r.previous_version} → ${r.version}`) ?? []), r]);
  const out: string[] = [];
  for (const [title, rows] of groups) {
    out.push(`### ${escapeTableCell(title)}`, '', '| configuration | metric | previous | new | change | 95% CI | p | runs |', '| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const r of rows) {
      const config = `${r.model} · ${r.precision} · ${r.hardware} · ${r.workload} · ${r.load}`;
      const ci = r.ci_low_pct === null ? 'n/a' : `${r.ci_low_pct.toFixed(1)}% … ${r.ci_high_pct!.toFixed(1)}%`;
      const p = r.p_value === null ? 'n/a' : r.p_value < 1e-4 ? '<0.0001' : r.p_value.toFixed(4);
      out.push(`| ${escapeTableCell(config)} | ${escapeTableCell(labels.get(r.metric) ?? r.metric)} | ${significant(r.previous_value)} | ${significant(r.value)} | ${r.change_pct > 0 ? '+' : ''}${r.change_pct.toFixed(1)}% | ${ci} | ${p} (${r.method}, n=${r.previous_runs}/${r.runs}) | [previous](${link(r.previous_file, r.previous_run_id)}) · [new](${link(r.file, r.run_id)}) |`);
    }
    out.push('');
  }
  out.push(`<!-- servebench regression keys: ${regressions.map((r) => r.key).join(' ')} -->`, '');
  return out.join('\n');
}
