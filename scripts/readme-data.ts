/**
 * The README's "What the data is today" paragraph, generated from results/ so it cannot drift from
 * what the repository holds: how many runs, of which engines and releases, on which models, workloads
 * and hosts, over which days, and how many comparisons. `npm run docs:readme` rewrites it between its
 * markers; a test fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../harness/contract/result.ts';
import { listComparisonFiles } from '../harness/store/comparisons.ts';
import { listResultFiles } from '../harness/store/result-files.ts';

export const README_PATH = fileURLToPath(new URL('../README.md', import.meta.url));
export const RESULTS_PATH = fileURLToPath(new URL('../results', import.meta.url));
const START = '<!-- data-today:start (npm run docs:readme writes this paragraph from results/) -->';
const END = '<!-- data-today:end -->';

const list = (items: readonly string[]): string => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);
const count = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** What results/ holds, as one paragraph of Markdown. */
export function dataToday(resultsDir: string = RESULTS_PATH): string {
  const { files } = listResultFiles(resultsDir);
  const runs = files.map((file) => JSON.parse(readFileSync(file.absolutePath, 'utf8')) as RunResult);
  const byEngine = new Map<string, Set<string>>();
  const models = new Set<string>();
  const workloads = new Set<string>();
  const hosts = new Set<string>();
  const days = new Set<string>();
  let official = 0;
  let completed = 0;
  let points = 0;
  for (const [index, run] of runs.entries()) {
    const engine = run.run?.engine?.name ?? 'unknown';
    if (!byEngine.has(engine)) byEngine.set(engine, new Set());
    if (run.run?.engine?.version) byEngine.get(engine)!.add(run.run.engine.version);
    if (run.run?.model?.id) models.add(`${run.run.model.id}${run.run.model.file?.weights === 'dummy' ? ' (dummy weights)' : ''}`);
    if (run.workload.name !== null) workloads.add(run.workload.name);
    // The results layout names the host class: <date>/<engine>/<model>/<hardware>/<file>.
    hosts.add(files[index]!.relativePath.split('/')[3]!);
    days.add(files[index]!.relativePath.split('/')[0]!);
    if (run.source === 'official') official += 1;
    if (run.status === 'completed') completed += 1;
    points += run.points.length;
  }
  const comparisons = listComparisonFiles(resultsDir).files.length;
  const engines = [...byEngine].sort(([a], [b]) => a.localeCompare(b)).map(([engine, versions]) => `${engine} ${list([...versions].sort())}`);
  const sortedDays = [...days].sort();
  const gpu = runs.some((run) => (run.run?.hardware?.gpus.length ?? 0) > 0);
  return [
    `\`results/\` holds ${count(runs.length, 'run')} (${official} official, ${completed} completed; ${count(points, 'load point')})`,
    `measured from ${sortedDays[0] ?? '–'} to ${sortedDays.at(-1) ?? '–'} by servebench's own commands on ${list([...hosts].sort().map((h) => `\`${h}\``))}:`,
    `${list(engines)}; models ${list([...models].sort())}; workloads ${list([...workloads].sort())};`,
    `and ${count(comparisons, 'comparison')} (paired A/Bs and bisections) in \`results/comparisons/\`.`,
    gpu ? '' : 'No GPU result yet: the GPU fleet (`fleet/fleet.yaml`) is configured, and its runs land here when a night runs on it.',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** The README with its data paragraph replaced by `paragraph`. */
export function withDataToday(readme: string, paragraph: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md: the markers ${START} … ${END} are missing`);
  return `${readme.slice(0, start + START.length)}\n${paragraph}\n${readme.slice(end)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(README_PATH, withDataToday(readFileSync(README_PATH, 'utf8'), dataToday()));
  process.stdout.write(`wrote what results/ holds into ${README_PATH}\n`);
}
