/**
 * What each published column means: the column definitions of columns.ts, the headline metrics,
 * and the few columns the derivations add (ranks, release statistics and intervals, frontiers,
 * deltas, capacity at the SLA tiers).
 */
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { SCHEMA_VERSION } from '../contract/result.ts';
import { writeFileAtomic } from '../lib/io/atomic-write.ts';
import { TABLES, tableQueries } from './tables.ts';
import { DELTA_COLUMN_DESCRIPTIONS, LONG_METRICS, METRIC_COLUMNS, POINT_COLUMNS, PRICED_COLUMNS, RUN_COLUMNS } from './columns.ts';
import { HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import { ID_COLUMNS } from './ids.ts';
import { AB_COMPARISON_COLUMNS, BISECTION_COLUMNS } from './comparison-tables.ts';
import { describeEvidenceColumn } from './published-values.ts';

const KNOWN = new Map([...RUN_COLUMNS, ...POINT_COLUMNS, ...PRICED_COLUMNS, ...METRIC_COLUMNS, ...ID_COLUMNS].map((c) => [c.name, { unit: c.unit, description: c.description }]));
const HEADLINE = new Map(HEADLINE_METRICS.map((m) => [m.column, m]));

const DERIVED: Record<string, { unit: string | null; description: string }> = {
  runs: { unit: 'runs', description: 'Completed runs of this release on this configuration' },
  first_run_date: { unit: 'UTC', description: 'First run of this release on this configuration' },
  last_run_date: { unit: 'UTC', description: 'Latest run of this release on this configuration' },
  latest_run_id: { unit: null, description: 'The latest run of this release on this configuration' },
  official: { unit: null, description: "The row counts in the official statistics: its runs are official (source) of a version that is not unverified (engine_version_known). Only such rows are ranked, compared, used as baselines or alerted on; false (history only): community or unverified-version runs, aggregated on their own rows and never pooled with official ones" },
  engines: { unit: 'engines', description: 'Engines ranked on this configuration' },
  interactivity: { unit: 'tokens/s/user', description: 'Median interactivity p50 of the release at this load point (x of the Pareto chart)' },
  throughput_per_gpu: { unit: 'tokens/s/GPU (tokens/s per host on CPU-only runs)', description: "Output throughput per GPU, the geometric mean over the release's runs at this load point (on CPU-only runs the host's whole output throughput); y of the Pareto chart" },
  latest_version: { unit: null, description: "This is the engine's newest version on the configuration" },
  on_version_frontier: { unit: null, description: 'No other load point of the same engine version has both higher interactivity and higher throughput' },
  on_overall_frontier: { unit: null, description: "No newest-version point of any engine dominates it" },
};

/** The capacity table (derive.ts): one row per release (scenario × engine × version) × SLA tier (fleet/sla-tiers.yaml). */
const CAPACITY: Record<string, { unit: string | null; description: string }> = {
  config_id: { unit: null, description: 'Configuration of the chosen load point (the scenario at that load); null when no load point meets the tier' },
  latest_version: { unit: null, description: "This is the engine's newest version measured on the scenario" },
  tier: { unit: null, description: 'SLA tier id (fleet/sla-tiers.yaml): limits on the release values (geometric means over runs) of TTFT p95 and TPOT p95' },
  meets: { unit: null, description: 'At least one measured load point of the release meets both limits of the tier (a missing metric fails)' },
  load: { unit: null, description: 'The chosen load point: the one meeting the tier with the highest throughput per GPU (never interpolated); null when none meets it' },
  concurrency: { unit: 'requests', description: 'Closed-loop concurrency of the chosen load point (null for open-loop points or when none meets the tier)' },
  throughput_per_gpu: { unit: 'tokens/s/GPU (tokens/s per host on CPU-only runs)', description: 'Capacity at the tier: output throughput per GPU of the chosen load point, the geometric mean over its runs (on CPU-only runs the host\'s whole output throughput)' },
  throughput_per_gpu_lo: { unit: 'tokens/s/GPU (tokens/s per host on CPU-only runs)', description: "Low end of the 95% interval (confidence interval of the geometric mean) of throughput_per_gpu over the chosen point's runs (t interval on logs; null with fewer than 2 runs)" },
  throughput_per_gpu_hi: { unit: 'tokens/s/GPU (tokens/s per host on CPU-only runs)', description: "High end of the 95% interval of throughput_per_gpu over the chosen point's runs" },
  ttft_ms_p95: { unit: 'ms', description: "TTFT p95 of the chosen load point: geometric mean over the release's runs (at most the tier's limit)" },
  tpot_ms_p95: { unit: 'ms', description: "TPOT p95 of the chosen load point: geometric mean over the release's runs (at most the tier's limit)" },
  cost_per_1m_output_tokens: { unit: 'USD', description: "GPU cost of one million output tokens at the chosen load point: geometric mean over the release's runs" },
  runs: { unit: 'runs', description: "Completed runs behind the chosen load point (with none meeting the tier: the most runs of any of the release's load points)" },
  run_id: { unit: null, description: 'The latest run of the chosen load point; null when none meets the tier' },
  tiers_version: { unit: null, description: 'Version of fleet/sla-tiers.yaml the tier limits come from' },
  unjudged_loads: { unit: 'load points', description: "The release's load points the tier could not judge: TTFT p95 or TPOT p95 has too few samples to be published (p95 needs n ≥ 20, docs/metrics.md#sample-sufficiency), so such a point never meets a tier" },
  unjudged_samples_max: { unit: 'samples', description: 'The largest sample among those load points (the smaller of its TTFT and TPOT samples); null when there are none' },
};

const COMPARISON_TABLES = new Map([
  ['ab_comparisons', new Map(AB_COMPARISON_COLUMNS.map((c) => [c.name, { unit: c.unit, description: c.description }]))],
  ['bisections', new Map(BISECTION_COLUMNS.map((c) => [c.name, { unit: c.unit, description: c.description }]))],
]);

export function describeColumn(table: string, name: string): { unit: string | null; description: string } {
  if (table === 'capacity' && CAPACITY[name]) return CAPACITY[name];
  // The deltas' own columns (run_id there is the newest release's latest run, not the runs table's run).
  if (table === 'deltas' && DELTA_COLUMN_DESCRIPTIONS[name]) return DELTA_COLUMN_DESCRIPTIONS[name];
  const comparison = COMPARISON_TABLES.get(table)?.get(name);
  if (comparison !== undefined) return comparison;
  const headline = HEADLINE.get(name);
  if ((table === 'leaderboard' || table === 'history') && headline) return { unit: headline.unit, description: `${headline.label}: geometric mean over the release's runs (runs with a positive value)` };
  if (name.startsWith('rank_')) {
    const metric = HEADLINE.get(name.slice(5));
    if (metric) return { unit: null, description: `Rank by ${metric.label} within the configuration (1 is best; ties share a rank)` };
  }
  const stat = name.match(/^(.*)__(meanlog|varlog|n)$/);
  if (stat && HEADLINE.get(stat[1]!)) {
    const what = { meanlog: 'Mean of ln(value)', varlog: 'Sample variance of ln(value)', n: 'Runs with a positive value' }[stat[2] as 'meanlog' | 'varlog' | 'n'];
    return { unit: null, description: `${what} of ${HEADLINE.get(stat[1]!)!.label} over the release's runs (for significance tests)` };
  }
  const interval = name.match(/^(.*)__(lo|hi)$/);
  if (interval && HEADLINE.get(interval[1]!)) {
    const metric = HEADLINE.get(interval[1]!)!;
    const end = interval[2] === 'lo' ? 'Low' : 'High';
    return { unit: metric.unit, description: `${end} end of the 95% interval (confidence interval of the geometric mean) of ${metric.label} over the release's runs: exp(mean ln ± t(0.975, n−1)·sd/√n), the interval the regression test uses (null with fewer than 2 runs)${metric.column === 'output_throughput_per_gpu' ? "; output throughput's interval divided by gpu_count" : ''}` };
  }
  const evidence = describeEvidenceColumn(name);
  if (evidence !== null) return evidence;
  if (table === 'metrics' && name === 'metric') return { unit: null, description: `Metric name, one of: ${[...new Set(LONG_METRICS.map(([m]) => m))].join(', ')}` };
  const known = DERIVED[name] ?? KNOWN.get(name);
  if (!known) throw new Error(`no description for column ${table}.${name}: add one in harness/store/dictionary.ts`);
  return known;
}

/** Every column of every published table with its type, unit and meaning. */
export async function writeDictionary(connection: DuckDBConnection, outDir: string): Promise<void> {
  const queries = tableQueries();
  const tables: Record<string, Array<{ name: string; type: string; unit: string | null; description: string }>> = {};
  for (const table of TABLES) {
    const described = (await connection.runAndReadAll(`DESCRIBE ${queries[table]}`)).getRowObjectsJS() as Array<{ column_name: string; column_type: string }>;
    tables[table] = described.map((c) => ({ name: c.column_name, type: c.column_type, ...describeColumn(table, c.column_name) }));
  }
  writeFileAtomic(join(outDir, 'dictionary.json'), `${JSON.stringify({ schema_version: SCHEMA_VERSION, tables }, null, 2)}\n`);
  const md = ['# servebench data dictionary', '', 'Generated by `servebench compile`. Units as stated; null means not measured.', ''];
  for (const [table, columns] of Object.entries(tables)) {
    md.push(`## ${table}`, '', '| column | type | unit | description |', '| --- | --- | --- | --- |');
    for (const c of columns) md.push(`| ${c.name} | ${c.type} | ${c.unit ?? ''} | ${c.description.replace(/\|/g, '\\|')} |`);
    md.push('');
  }
  writeFileAtomic(join(outDir, 'DICTIONARY.md'), md.join('\n'));
}

