/**
 * The comparisons of results/comparisons/ as two published tables (Parquet, and the site's
 * bisections.json): one row per valid A/B (`ab_comparisons`) and per valid bisection
 * (`bisections`), each on the configuration its arm runs measured, named by the same
 * scenario_id and config_id as the points (ids.ts: the ids are computed from the same columns, by the
 * same SQL), so the site puts a bisection on the history chart it explains.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { blockPairing, type AbResult, type Bisection } from '../contract/comparison.ts';
import type { RunResult } from '../contract/result.ts';
import { columnValues } from './column-fit.ts';
import { col, columnOf, CONFIG_COLUMNS, POINT_ONLY_COLUMNS, type Column, type SqlType, type Value } from './columns.ts';
import type { CheckedComparisons } from './comparisons.ts';
import { CONFIG_KEY, idSql, SCENARIO_KEY } from './ids.ts';
import { sqlString } from './tables.ts';

const SHARED: readonly Column[] = [
  col('file', 'VARCHAR', null, 'The comparison file under results/ (comparisons/<day>/<engine>/<model>/<hardware>/…json)'),
  col('sha256', 'VARCHAR', null, 'sha256 of the file'),
  col('started_at', 'TIMESTAMP', 'UTC', 'When the comparison started'),
  col('engine', 'VARCHAR', null, 'Engine whose releases were compared (engines/<engine>.yaml)'),
  col('model_arg', 'VARCHAR', null, 'The model as the command was given it (--model)'),
  col('model', 'VARCHAR', null, 'Model id its runs recorded (as in the points table)'),
  col('hardware', 'VARCHAR', null, 'Hardware its runs ran on (as in the points table)'),
  col('workload', 'VARCHAR', null, 'Workload scenario name'),
  col('load', 'VARCHAR', null, 'The one load point every arm ran (c=N closed loop)'),
  col('metric', 'VARCHAR', null, 'The compared point metric (a points column)'),
  col('better', 'VARCHAR', null, 'Which way the metric is better: higher or lower'),
  col('precision', 'VARCHAR', null, 'Precision its runs recorded (as in the points table)'),
  col('methodology', 'VARCHAR', null, 'Methodology its runs were measured under (as in the points table)'),
  col('workload_sha256', 'VARCHAR', null, "sha256 of its runs' workload spec: a comparison run with --num-prompts or --duration differs from the published runs' here"),
  col('scenario_id', 'VARCHAR', null, 'Scenario id of its runs (as in the points table)'),
  col('config_id', 'VARCHAR', null, 'Configuration id of its runs (as in the points table)'),
  col('explains_scenario_id', 'VARCHAR', null, "The published scenario it explains: its own, else the one of the same model, precision, hardware, workload name and methodology measured at its load (its runs' request count may differ: see workload_sha256)"),
];

export const AB_COMPARISON_COLUMNS: readonly Column[] = [
  ...SHARED,
  col('a_version', 'VARCHAR', null, 'Arm A, the baseline release (--a)'),
  col('b_version', 'VARCHAR', null, 'Arm B, the release compared with A (--b)'),
  col('aa_check', 'BOOLEAN', null, 'An A/A check (B is A): its right verdict is no change or inconclusive'),
  col('status', 'VARCHAR', null, 'completed, failed (an arm run failed) or interrupted'),
  col('verdict', 'VARCHAR', null, 'faster, slower, no change or inconclusive: of B against A, standing only where the main and confirm passes agree; null unless completed'),
  col('effect', 'DOUBLE', 'ratio', 'exp(mean ln(B/A)) − 1 over every block of every pass (paired t): +0.10 is B 10% higher'),
  col('effect_lo', 'DOUBLE', 'ratio', 'Low end of the 95% interval of the effect'),
  col('effect_hi', 'DOUBLE', 'ratio', 'High end of the 95% interval of the effect'),
  col('main_verdict', 'VARCHAR', null, "The main pass's own verdict"),
  col('confirm_verdict', 'VARCHAR', null, "The confirm pass's own verdict (null with --no-confirm)"),
  col('blocks_per_pass', 'INTEGER', 'blocks', 'ABBA blocks in each pass (each block: one fresh launch of each arm)'),
  col('sd_aa', 'DOUBLE', null, 'σ of ln(A₂/A₁) over the A/A pilot blocks: the per-block noise of this host'),
  col('margin', 'DOUBLE', 'ratio', 'Equivalence margin: no change needs the whole interval within ±margin'),
  col('bisection', 'VARCHAR', null, 'The bisection file whose step this A/B is, if any'),
  col('unpaired_blocks', 'INTEGER', 'blocks', "Blocks (pilot and passes) whose two arms answered different requests (one stopped on --duration first): its verdict counts them. Only A/Bs of schema version 1, filed before validate refused them, can have any"),
];

export const BISECTION_COLUMNS: readonly Column[] = [
  ...SHARED,
  col('good', 'VARCHAR', null, 'The older end (--good): a node-llama-cpp release for llama.cpp'),
  col('bad', 'VARCHAR', null, 'The newer end (--bad)'),
  col('good_tag', 'VARCHAR', null, 'llama.cpp tag the older end bundles (null for other engines)'),
  col('bad_tag', 'VARCHAR', null, 'llama.cpp tag the newer end bundles'),
  col('releases', 'INTEGER', 'releases', 'Releases from good to bad, both included (one per distinct build)'),
  col('outcome', 'VARCHAR', null, 'culprit (two adjacent releases), spread, not reproducible (the end-to-end A/B found no change), inconclusive, budget, failed or interrupted'),
  col('direction', 'VARCHAR', null, 'The end-to-end verdict followed: faster or slower; null when there was none'),
  col('range_good', 'VARCHAR', null, 'Older release of the range narrowed to (the culprit pair for culprit and spread)'),
  col('range_bad', 'VARCHAR', null, 'Newer release of the range narrowed to'),
  col('range_good_tag', 'VARCHAR', null, 'llama.cpp tag of range_good'),
  col('range_bad_tag', 'VARCHAR', null, 'llama.cpp tag of range_bad'),
  col('compare_url', 'VARCHAR', null, "GitHub's compare view of the range's two llama.cpp tags (every commit between them)"),
  col('effect', 'DOUBLE', 'ratio', "The range's own A/B, where the search compared exactly its two releases: exp(mean ln(B/A)) − 1; else the end-to-end A/B's"),
  col('effect_lo', 'DOUBLE', 'ratio', 'Low end of its 95% interval'),
  col('effect_hi', 'DOUBLE', 'ratio', 'High end of its 95% interval'),
  col('end_to_end_verdict', 'VARCHAR', null, 'Verdict of the first A/B, good against bad'),
  col('comparisons', 'INTEGER', 'A/Bs', 'Paired A/Bs the search made'),
  col('builds_made', 'INTEGER', 'builds', 'Engine builds made for it (llama.cpp)'),
  col('builds_cached', 'INTEGER', 'builds', 'Engine builds the cache already had'),
  col('wall_s', 'DOUBLE', 's', 'Wall time of the whole bisection'),
  col('unpaired_blocks', 'INTEGER', 'blocks', "Unpaired blocks over its steps' A/Bs (see ab_comparisons.unpaired_blocks)"),
];

/** Blocks of an A/B whose two arms answered different requests (blockPairing). */
export function unpairedBlocks(ab: AbResult): number {
  return [...ab.aa.blocks, ...ab.passes.flatMap((pass) => pass.blocks)].filter((block) => blockPairing(block.a, block.b) !== null).length;
}

/** The first arm run of an A/B and its point at the A/B's load: the configuration it measured. */
function firstArm(ab: AbResult): { run: RunResult; index: number } | null {
  const run = ab.aa.blocks[0]?.a ?? ab.passes[0]?.blocks[0]?.a ?? ab.stopped?.run;
  if (run?.run === undefined || run.run === null) return null;
  const index = run.points.findIndex((p) => JSON.stringify(p.load) === JSON.stringify(ab.load));
  return index < 0 ? null : { run, index };
}

const KEY_COLUMNS = [...CONFIG_COLUMNS, ...POINT_ONLY_COLUMNS].filter((c) => (CONFIG_KEY as readonly string[]).includes(c.name) || ['model', 'hardware', 'load'].includes(c.name));

/** The configuration columns of an A/B's first arm run, named, as the points table has them. */
function configurationOf(ab: AbResult): Map<string, Value> | null {
  const arm = firstArm(ab);
  if (arm === null) return null;
  const context = { result: arm.run, run: arm.run.run!, relativePath: '', sha256: '', point: arm.run.points[arm.index]!, index: arm.index };
  const runColumns = CONFIG_COLUMNS.filter((c) => KEY_COLUMNS.includes(c));
  const pointColumns = POINT_ONLY_COLUMNS.filter((c) => KEY_COLUMNS.includes(c));
  const values = [...columnValues(runColumns, context), ...columnValues(pointColumns, context)];
  return new Map([...runColumns, ...pointColumns].map((c, i) => [c.name, values[i]!]));
}

function literal(value: Value | undefined, type: SqlType): string {
  if (value === null || value === undefined) return `CAST(NULL AS ${type})`;
  if (typeof value === 'string') return `CAST(${sqlString(value)} AS ${type})`;
  if (typeof value === 'number') return Number.isFinite(value) ? `CAST(${value} AS ${type})` : `CAST(NULL AS ${type})`;
  return `CAST(${value ? 'true' : 'false'} AS ${type})`;
}

/** The ids from the configuration's own columns, typed as the points table types them, through ids.ts's SQL. */
function idsOf(configuration: Map<string, Value> | null): { scenario: string; config: string } {
  if (configuration === null) return { scenario: 'CAST(NULL AS VARCHAR)', config: 'CAST(NULL AS VARCHAR)' };
  const row = KEY_COLUMNS.map((c) => `${literal(configuration.get(c.name), c.type)} AS ${columnOf(c.name)}`).join(', ');
  return { scenario: `(SELECT ${idSql(SCENARIO_KEY)} FROM (SELECT ${row}))`, config: `(SELECT ${idSql(CONFIG_KEY)} FROM (SELECT ${row}))` };
}

async function createTable(connection: DuckDBConnection, name: string, columns: readonly Column[], rows: ReadonlyArray<Map<string, Value>>, key: ReadonlyArray<Map<string, Value> | null>): Promise<void> {
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${name} (${columns.map((c) => `${columnOf(c.name)} ${c.type}`).join(', ')})`);
  for (const [i, row] of rows.entries()) {
    const ids = idsOf(key[i] ?? null);
    const select = columns.map((c) => (c.name === 'scenario_id' ? ids.scenario : c.name === 'config_id' ? ids.config : c.name === 'explains_scenario_id' ? 'CAST(NULL AS VARCHAR)' : literal(row.get(c.name), c.type)));
    await connection.run(`INSERT INTO ${name} SELECT ${select.join(', ')}`);
  }
}

function sharedRow(file: string, sha256: string, header: AbResult | Bisection, configuration: Map<string, Value> | null): Map<string, Value> {
  return new Map<string, Value>([
    ['file', file],
    ['sha256', sha256],
    ['started_at', header.started_at],
    ['engine', header.engine],
    ['model_arg', header.model],
    ['model', configuration?.get('model') ?? null],
    ['hardware', configuration?.get('hardware') ?? null],
    ['workload', header.workload],
    ['load', configuration?.get('load') ?? null],
    ['precision', configuration?.get('precision') ?? null],
    ['methodology', configuration?.get('methodology') ?? null],
    ['workload_sha256', configuration?.get('workload_sha256') ?? null],
    ['metric', header.metric],
    ['better', header.better],
  ]);
}

/** Creates the two tables (temp, in the store's connection) from the valid comparisons; returns their row counts. */
export async function loadComparisonTables(connection: DuckDBConnection, comparisons: CheckedComparisons): Promise<{ ab_comparisons: number; bisections: number }> {
  const valid = [...comparisons.checked].filter(([, c]) => c.problems.length === 0);
  const abs = new Map(valid.filter(([, c]) => c.ab !== null).map(([file, c]) => [file, { ab: c.ab!, sha256: c.sha256 }]));
  const bisectionOf = new Map<string, string>();
  for (const [file, c] of valid) for (const step of c.bisection?.steps ?? []) bisectionOf.set(step.ab_file, file);
  const abRows: Array<Map<string, Value>> = [];
  const abKeys: Array<Map<string, Value> | null> = [];
  for (const [file, { ab, sha256 }] of abs) {
    const configuration = configurationOf(ab);
    const row = sharedRow(file, sha256, ab, configuration);
    const [main, confirm] = ab.passes;
    const more: Array<[string, Value]> = [
      ['a_version', ab.a.version],
      ['b_version', ab.b.version],
      ['aa_check', ab.aa_check],
      ['status', ab.status],
      ['verdict', ab.verdict],
      ['effect', ab.effect],
      ['effect_lo', ab.interval?.[0] ?? null],
      ['effect_hi', ab.interval?.[1] ?? null],
      ['main_verdict', main?.comparison?.verdict ?? null],
      ['confirm_verdict', confirm?.comparison?.verdict ?? null],
      ['blocks_per_pass', ab.blocks_per_pass],
      ['sd_aa', ab.aa.sd_log_ratio],
      ['margin', ab.margin],
      ['bisection', bisectionOf.get(file) ?? null],
      ['unpaired_blocks', unpairedBlocks(ab)],
    ];
    for (const [k, v] of more) row.set(k, v);
    abRows.push(row);
    abKeys.push(configuration);
  }
  const bisectionRows: Array<Map<string, Value>> = [];
  const bisectionKeys: Array<Map<string, Value> | null> = [];
  for (const [file, c] of valid) {
    const bisection = c.bisection;
    if (bisection === null) continue;
    const first = abs.get(bisection.steps[0]?.ab_file ?? '');
    const configuration = first === undefined ? null : configurationOf(first.ab);
    const row = sharedRow(file, c.sha256, bisection, configuration);
    const tagOf = (version: string) => bisection.releases.find((r) => r.version === version)?.tag ?? null;
    // The change's own size: the A/B of exactly the range's two releases where the search made it, else the end-to-end one.
    const own = bisection.steps.findLast((s) => s.a === bisection.range.good && s.b === bisection.range.bad && s.verdict !== null) ?? bisection.steps[0];
    const more: Array<[string, Value]> = [
      ['good', bisection.good],
      ['bad', bisection.bad],
      ['good_tag', tagOf(bisection.good)],
      ['bad_tag', tagOf(bisection.bad)],
      ['releases', bisection.releases.length],
      ['outcome', bisection.outcome],
      ['direction', bisection.direction],
      ['range_good', bisection.range.good],
      ['range_bad', bisection.range.bad],
      ['range_good_tag', bisection.range.llamacpp_tags?.[0] ?? null],
      ['range_bad_tag', bisection.range.llamacpp_tags?.[1] ?? null],
      ['compare_url', bisection.range.links.compare],
      ['effect', own?.effect ?? null],
      ['effect_lo', own?.interval?.[0] ?? null],
      ['effect_hi', own?.interval?.[1] ?? null],
      ['end_to_end_verdict', bisection.steps[0]?.verdict ?? null],
      ['comparisons', bisection.comparisons],
      ['builds_made', bisection.builds.built.length],
      ['builds_cached', bisection.builds.cached.length],
      ['wall_s', bisection.wall_s],
      ['unpaired_blocks', bisection.steps.reduce((sum, step) => sum + (abs.has(step.ab_file) ? unpairedBlocks(abs.get(step.ab_file)!.ab) : 0), 0)],
    ];
    for (const [k, v] of more) row.set(k, v);
    bisectionRows.push(row);
    bisectionKeys.push(configuration);
  }
  await createTable(connection, 'ab_comparisons', AB_COMPARISON_COLUMNS, abRows, abKeys);
  await createTable(connection, 'bisections', BISECTION_COLUMNS, bisectionRows, bisectionKeys);
  // A comparison usually runs more requests per point than the published runs (a percentile needs its samples): the same
  // configuration in every name but its workload spec's hash. Official releases first, so a page that exists is chosen.
  for (const table of ['ab_comparisons', 'bisections']) {
    await connection.run(`UPDATE ${table} AS c SET explains_scenario_id = coalesce(
      (SELECT any_value(r.scenario_id) FROM releases r WHERE r.scenario_id = c.scenario_id),
      (SELECT min(r.scenario_id) FROM releases r WHERE r.model = c.model AND r.precision = c.precision AND r.hardware = c.hardware AND r.workload = c.workload AND r.methodology = c.methodology AND r.load = c.load),
      c.scenario_id)`);
  }
  return { ab_comparisons: abRows.length, bisections: bisectionRows.length };
}
