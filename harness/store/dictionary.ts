/**
 * What each published column means: the column definitions of columns.ts, the headline metrics,
 * and the few columns the derivations add (ranks, release statistics, frontiers, deltas).
 */
import { DELTA_COLUMN_DESCRIPTIONS, LONG_METRICS, METRIC_COLUMNS, POINT_COLUMNS, PRICED_COLUMNS, RUN_COLUMNS } from './columns.ts';
import { HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import { ID_COLUMNS } from './ids.ts';

const KNOWN = new Map([...RUN_COLUMNS, ...POINT_COLUMNS, ...PRICED_COLUMNS, ...METRIC_COLUMNS, ...ID_COLUMNS].map((c) => [c.name, { unit: c.unit, description: c.description }]));
const HEADLINE = new Map(HEADLINE_METRICS.map((m) => [m.column, m]));

const DERIVED: Record<string, { unit: string | null; description: string }> = {
  runs: { unit: 'runs', description: 'Completed runs of this release on this configuration' },
  first_run_date: { unit: 'UTC', description: 'First run of this release on this configuration' },
  last_run_date: { unit: 'UTC', description: 'Latest run of this release on this configuration' },
  latest_run_id: { unit: null, description: 'The latest run of this release on this configuration' },
  official: { unit: null, description: 'At least one of the runs is official (servebench fleet)' },
  engines: { unit: 'engines', description: 'Engines ranked on this configuration' },
  interactivity: { unit: 'tokens/s/user', description: 'Median interactivity p50 of the release at this load point (x of the Pareto chart)' },
  throughput_per_gpu: { unit: 'tokens/s/GPU', description: 'Median output throughput per GPU (output throughput on CPU-only runs; y of the Pareto chart)' },
  latest_version: { unit: null, description: "This is the engine's newest version on the configuration" },
  on_version_frontier: { unit: null, description: 'No other load point of the same engine version has both higher interactivity and higher throughput' },
  on_overall_frontier: { unit: null, description: "No newest-version point of any engine dominates it" },
  ...DELTA_COLUMN_DESCRIPTIONS,
};

export function describeColumn(table: string, name: string): { unit: string | null; description: string } {
  const headline = HEADLINE.get(name);
  if ((table === 'leaderboard' || table === 'history') && headline) return { unit: headline.unit, description: `${headline.label}: median over the release's runs` };
  if (name.startsWith('rank_')) {
    const metric = HEADLINE.get(name.slice(5));
    if (metric) return { unit: null, description: `Rank by ${metric.label} within the configuration (1 is best; ties share a rank)` };
  }
  const stat = name.match(/^(.*)__(meanlog|varlog|n)$/);
  if (stat && HEADLINE.get(stat[1]!)) {
    const what = { meanlog: 'Mean of ln(value)', varlog: 'Sample variance of ln(value)', n: 'Runs with a positive value' }[stat[2] as 'meanlog' | 'varlog' | 'n'];
    return { unit: null, description: `${what} of ${HEADLINE.get(stat[1]!)!.label} over the release's runs (for significance tests)` };
  }
  if (table === 'metrics' && name === 'metric') return { unit: null, description: `Metric name, one of: ${[...new Set(LONG_METRICS.map(([m]) => m))].join(', ')}` };
  const known = DERIVED[name] ?? KNOWN.get(name);
  if (!known) throw new Error(`no description for column ${table}.${name}: add one in harness/store/dictionary.ts`);
  return known;
}
