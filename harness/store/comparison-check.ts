/**
 * Everything that makes a comparison file (an A/B or a bisection, harness/contract/comparison.ts)
 * acceptable in results/comparisons/. Nothing a verdict rests on is taken on trust:
 * - an A/B: every arm run is checked as a run file is (schema, provenance, plausibility, recorded
 *   command, credentials: check-result.ts), ran the A/B's engine, model, workload and load point
 *   with the release its arm names, and its metric value is read again from its point; the blocks
 *   alternate ABBA and ran in the order they say; every pass's paired test, the confirm rule, the
 *   verdict, the effect and its interval are recomputed from those values;
 * - a bisection: each step names a filed A/B by path and sha256, and says what that A/B says; the
 *   search is replayed over those verdicts (harness/lib/bisect-search.ts) and must end where the
 *   file says, with the culprit's tags and links made from the release list, never taken from it.
 * Each problem names the file, the JSON path and the fix, as a run's do.
 */
import { createHash } from 'node:crypto';
import {
  AbResultSchema,
  abHardware,
  AB_SCHEMA_VERSION,
  AB_SCHEMA_VERSIONS,
  blockPairing,
  BisectionSchema,
  BISECTION_SCHEMA_VERSION,
  compareLink,
  comparisonRelativePath,
  llamaCppRelease,
  MAX_COMPARISON_BYTES,
  plainRelease,
  type AbBlock,
  type AbResult,
  type Bisection,
  type BisectRelease,
} from '../contract/comparison.ts';
import { findCredentials } from '../contract/credentials.ts';
import { HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import { pointMetricValue } from '../contract/point-metric.ts';
import type { RunResult } from '../contract/result.ts';
import { bisectReleases } from '../lib/bisect-search.ts';
import { readRecordedArgv } from '../lib/cli/recorded-argv.ts';
import { RESULT_COMMAND_OPTIONS } from '../contract/command-options.ts';
import { comparePaired, confirmVerdict, type PairedComparison } from '../lib/stats/paired.ts';
import { compareVersions } from '../lib/version-compare.ts';
import { checkResultText, jsonPath, type CheckOptions, type ResultProblem } from './check-result.ts';
import { limitRule, LIMIT_RULES, MAX_NESTING_DEPTH, tooDeepAt } from './store-limits.ts';

type Add = (path: string, message: string, fix: string) => void;

export interface CheckedComparison {
  readonly kind: 'ab' | 'bisection' | null;
  readonly ab: AbResult | null;
  readonly bisection: Bisection | null;
  readonly sha256: string;
  /** The hardware label its path carries (an A/B's: its arm runs'; a bisection's: its steps' A/Bs'). */
  readonly hardware: string | null;
  readonly problems: ResultProblem[];
}

/** A filed A/B a bisection's step names, as the same check (of the same batch) found it. */
export type AbLookup = (relativePath: string) => { readonly sha256: string; readonly ab: AbResult | null; readonly hardware: string | null } | null;

/** A comparison wraps whole runs (a run may nest up to the limit itself), a few levels down. */
const MAX_COMPARISON_DEPTH = MAX_NESTING_DEPTH + 8;
/** Recomputed floating-point values agree with the recorded ones to this relative tolerance (JSON round-trips exactly; the margin is for another libm). */
const TOLERANCE = 1e-9;
const SAFE_PATH = /^comparisons\/[a-z0-9][a-z0-9./-]*\.json$/;

const close = (a: number | null, b: number | null): boolean => (a === null || b === null ? a === b : Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b)));
const closePair = (a: readonly [number, number] | null, b: readonly [number, number] | null): boolean => (a === null || b === null ? a === b : close(a[0], b[0]) && close(a[1], b[1]));
const shown = (value: unknown): string => JSON.stringify(value)?.slice(0, 80) ?? 'undefined';

/**
 * The commands that write each kind: an A/B is `servebench ab`'s (confirm runs its A/Bs as ab and
 * records that line); a bisection is `servebench bisect`'s, or `servebench confirm`'s, which
 * bisects each confirmed regression starting from its A/B.
 */
const COMPARISON_WRITERS: Readonly<Record<'ab' | 'bisection', readonly string[]>> = { ab: ['ab'], bisection: ['bisect', 'confirm'] };

/** A paired comparison as recorded against the one recomputed from the same blocks. */
function checkComparison(recorded: Omit<PairedComparison, 'blocks'> & { blocks: number }, expected: PairedComparison, at: string, add: Add): void {
  const same = recorded.verdict === expected.verdict && recorded.blocks === expected.blocks && close(recorded.effect, expected.effect) && closePair(recorded.interval, expected.interval) && close(recorded.mean_log_ratio, expected.mean_log_ratio) && close(recorded.sd_log_ratio, expected.sd_log_ratio) && close(recorded.p, expected.p);
  if (!same) add(at, `[ab-recomputed] says ${recorded.verdict} ${shown(recorded.effect)} ${shown(recorded.interval)} over ${recorded.blocks} blocks; its blocks give ${expected.verdict} ${shown(expected.effect)} ${shown(expected.interval)} over ${expected.blocks}`, 'a comparison is what its blocks give: write it with `servebench ab`, unedited');
}

/**
 * The release an arm run was asked for: its recorded `--engine-version` (an engine that takes the
 * release as a serve flag also records it in run.parameters; llama.cpp as a process picks the build
 * by it instead). The run's own check has already held the command to the result.
 */
function askedRelease(run: RunResult): string | null {
  const recorded = readRecordedArgv(run.harness.command, 'run', RESULT_COMMAND_OPTIONS.run);
  const flag = recorded.ok ? recorded.parsed.options.findLast((option) => option.spec.name === 'engine-version')?.value : undefined;
  const parameter = run.run?.parameters.engine_version;
  return flag ?? (typeof parameter === 'string' ? parameter : null);
}

function checkArmRun(run: RunResult, at: string, expected: { ab: AbResult; version: string }, file: string, options: CheckOptions, add: Add, problems: ResultProblem[]): number | null {
  // The arm run is a run result like any other: every rule a run file meets, it meets.
  const checked = checkResultText(file, JSON.stringify(run), null, options);
  for (const problem of checked.problems) problems.push({ ...problem, path: problem.path === '' ? at : `${at}.${problem.path}` });
  const { ab } = expected;
  if (run.run?.engine.name !== ab.engine) add(`${at}.run.engine.name`, `[ab-arm] ran engine ${shown(run.run?.engine.name)}, not the A/B's ${ab.engine}`, 'every arm of an A/B runs its engine');
  if (run.workload.name !== ab.workload) add(`${at}.workload.name`, `[ab-arm] ran workload ${shown(run.workload.name)}, not the A/B's ${ab.workload}`, 'every arm of an A/B runs its workload');
  const asked = askedRelease(run);
  if (asked !== expected.version) add(`${at}.harness.command`, `[ab-arm] ran release ${shown(asked)}, not its arm's ${expected.version}`, 'an arm run is `servebench run --engine-version <its arm>`');
  const point = run.points.find((p) => JSON.stringify(p.load) === JSON.stringify(ab.load));
  if (point === undefined) {
    add(`${at}.points`, `[ab-arm] has no point at the A/B's load ${shown(ab.load)}`, 'every arm of an A/B runs its one load point');
    return null;
  }
  const value = pointMetricValue(point, ab.metric);
  if ('problem' in value) {
    add(`${at}.points`, `[ab-arm] ${value.problem}`, 'a block compares two values the points support');
    return null;
  }
  return value.value;
}

interface BlockSet {
  readonly blocks: readonly AbBlock[];
  readonly at: string;
  readonly pilot: boolean;
}

function checkBlocks(set: BlockSet, ab: AbResult, file: string, options: CheckOptions, add: Add, problems: ResultProblem[]): void {
  set.blocks.forEach((block, index) => {
    const at = `${set.at}[${index}]`;
    const order = set.pilot ? 'AA' : index % 2 === 0 ? 'AB' : 'BA';
    if (block.index !== index || block.order !== order) add(at, `[ab-design] block ${index} is ${shown(block.index)} ${shown(block.order)}; the design runs it as ${index} ${order}`, 'a pilot block is AA; a pass alternates AB, BA (ABBA), so a linear drift cancels');
    const a = checkArmRun(block.a, `${at}.a`, { ab, version: ab.a.version }, file, options, add, problems);
    const b = checkArmRun(block.b, `${at}.b`, { ab, version: set.pilot ? ab.a.version : ab.b.version }, file, options, add, problems);
    if (a !== null && !close(a, block.a_value)) add(`${at}.a_value`, `[ab-recomputed] is ${block.a_value}; its run's point gives ${a}`, 'a block value is its run\'s point value, unedited');
    if (b !== null && !close(b, block.b_value)) add(`${at}.b_value`, `[ab-recomputed] is ${block.b_value}; its run's point gives ${b}`, 'a block value is its run\'s point value, unedited');
    // Version 1 files predate the rule and are accepted as filed; compile counts their unpaired blocks.
    const unpaired = blockPairing(block.a, block.b);
    if (unpaired !== null && ab.schema_version >= AB_SCHEMA_VERSION) add(at, `[ab-pairing] ${unpaired}`, 'a block compares the same requests in both arms: `servebench ab` stops at such a block; give a --duration long enough for --num-prompts');
    if (!close(block.log_ratio, Math.log(block.b_value / block.a_value))) add(`${at}.log_ratio`, `[ab-recomputed] is ${block.log_ratio}, not ln(b_value / a_value) = ${Math.log(block.b_value / block.a_value)}`, 'a block\'s log ratio is ln(B/A) of its values');
    // The order a block says is the order its arms ran in: the interleaving is what the pairing rests on.
    const first = order === 'BA' ? block.b : block.a;
    const second = order === 'BA' ? block.a : block.b;
    if (first.finished_at > second.created_at) add(at, `[ab-design] its ${order} order is not the order its runs ran in (${first.created_at} … ${second.created_at})`, 'each block runs its arms one after the other, in its order');
  });
}

function checkAb(ab: AbResult, file: string, options: CheckOptions, add: Add, problems: ResultProblem[]): void {
  const metric = HEADLINE_METRICS.find((m) => m.column === ab.metric)!;
  if (ab.better !== metric.better) add('better', `[ab-metric] says ${ab.better} is better for ${ab.metric}; the catalog says ${metric.better}`, 'better is the metric\'s own direction (harness/contract/metric-catalog.ts)');
  if (ab.aa_check !== (ab.a.version === ab.b.version)) add('aa_check', `[ab-design] aa_check is ${ab.aa_check} with arms ${ab.a.version} and ${ab.b.version}`, 'an A/A check is an A/B of one release against itself, and only that');
  const options_ = { better: ab.better, alpha: ab.alpha, margin: ab.margin };
  checkBlocks({ blocks: ab.aa.blocks, at: 'aa.blocks', pilot: true }, ab, file, options, add, problems);
  if (JSON.stringify(ab.aa.ratios) !== JSON.stringify(ab.aa.blocks.map((b) => b.log_ratio))) add('aa.ratios', '[ab-recomputed] the pilot ratios are not its blocks\' log ratios', 'write it with `servebench ab`, unedited');
  const pilotSd = ab.aa.blocks.length >= 2 ? comparePaired(ab.aa.blocks.map((b) => ({ a: b.a_value, b: b.b_value })), options_).sd_log_ratio : null;
  if (!close(ab.aa.sd_log_ratio, pilotSd)) add('aa.sd_log_ratio', `[ab-recomputed] is ${shown(ab.aa.sd_log_ratio)}; the pilot's blocks give ${shown(pilotSd)}`, 'σ is the SD of the pilot\'s log ratios');
  const names = ab.confirm ? ['main', 'confirm'] : ['main'];
  const recorded: PairedComparison[] = [];
  ab.passes.forEach((pass, index) => {
    if (pass.name !== names[index]) add(`passes[${index}].name`, `[ab-design] pass ${index} is ${shown(pass.name)}, not ${shown(names[index])}`, 'the passes are main, then confirm (unless --no-confirm)');
    checkBlocks({ blocks: pass.blocks, at: `passes[${index}].blocks`, pilot: false }, ab, file, options, add, problems);
    if (pass.comparison === null) return;
    if (pass.blocks.length !== ab.blocks_per_pass) add(`passes[${index}].blocks`, `[ab-design] a finished pass has ${pass.blocks.length} blocks, the design ${shown(ab.blocks_per_pass)}`, 'every pass runs blocks_per_pass blocks');
    const expected = comparePaired(pass.blocks.map((b) => ({ a: b.a_value, b: b.b_value })), options_);
    checkComparison(pass.comparison, expected, `passes[${index}].comparison`, add);
    recorded.push(expected);
  });
  const complete = ab.passes.length === names.length && ab.passes.every((pass) => pass.comparison !== null);
  if (ab.status === 'completed') {
    if (!complete || ab.stopped !== null) add('status', '[ab-status] completed, but a pass is missing or unfinished, or it says where it stopped', 'completed means every planned block ran; a stopped A/B is failed or interrupted');
    else {
      const verdict = recorded.length === 2 ? confirmVerdict(recorded[0]!, recorded[1]!) : recorded[0]!.verdict;
      if (ab.verdict !== verdict) add('verdict', `[ab-recomputed] says ${shown(ab.verdict)}; its passes give ${verdict}`, 'the verdict stands only where both passes agree (confirmVerdict)');
      const overall = comparePaired(ab.passes.flatMap((pass) => pass.blocks.map((b) => ({ a: b.a_value, b: b.b_value }))), options_);
      if (!close(ab.effect, overall.effect) || !closePair(ab.interval, overall.interval)) add('effect', `[ab-recomputed] says ${shown(ab.effect)} ${shown(ab.interval)}; all its blocks give ${shown(overall.effect)} ${shown(overall.interval)}`, 'the effect and its interval are the paired t over every block of every pass');
    }
  } else {
    if (ab.stopped === null) add('stopped', `[ab-status] ${ab.status}, but it does not say where it stopped`, 'a failed or interrupted A/B keeps the run that stopped it');
    if (ab.verdict !== null || ab.effect !== null || ab.interval !== null) add('verdict', `[ab-status] ${ab.status}, yet it has a verdict`, 'only a completed A/B has a verdict');
  }
  if (ab.stopped !== null) {
    const arm = ab.stopped.arm === 'A' || ab.stopped.stage === 'pilot' ? ab.a.version : ab.b.version;
    const checked = checkResultText(file, JSON.stringify(ab.stopped.run), null, options);
    for (const problem of checked.problems) problems.push({ ...problem, path: problem.path === '' ? 'stopped.run' : `stopped.run.${problem.path}` });
    if (askedRelease(ab.stopped.run) !== arm) add('stopped.run.harness.command', `[ab-arm] the stopped run ran ${shown(askedRelease(ab.stopped.run))}, not its arm's ${arm}`, 'an arm run is `servebench run --engine-version <its arm>`');
  }
}

/** The release list as servebench makes it: links come from the versions and tags, never from the file. */
function checkReleases(bisection: Bisection, add: Add): void {
  const releases = bisection.releases;
  releases.forEach((release, index) => {
    const made: BisectRelease = release.tag === null ? plainRelease(release.version) : llamaCppRelease(release.version, release.tag);
    if (JSON.stringify(made.links) !== JSON.stringify(release.links)) add(`releases[${index}].links`, `[bisect-links] links ${shown(release.links)} are not the release pages of ${release.version}${release.tag === null ? '' : ` (llama.cpp ${release.tag})`}`, 'a release\'s links are made by servebench from its version and tag');
    if (index > 0 && compareVersions(releases[index - 1]!.version, release.version) >= 0) add(`releases[${index}].version`, `[bisect-releases] ${release.version} does not come after ${releases[index - 1]!.version}`, 'the releases are listed oldest first, each once');
  });
  if (releases[0]!.version !== bisection.good || releases.at(-1)!.version !== bisection.bad) add('releases', `[bisect-releases] the list runs ${releases[0]!.version} … ${releases.at(-1)!.version}, not --good ${bisection.good} … --bad ${bisection.bad}`, 'the release list runs from --good to --bad');
}

function checkRange(bisection: Bisection, range: Bisection['range'], at: string, add: Add): void {
  const find = (version: string) => bisection.releases.find((r) => r.version === version);
  const [good, bad] = [find(range.good), find(range.bad)];
  if (good === undefined || bad === undefined) {
    add(at, `[bisect-range] ${range.good} → ${range.bad} are not both in its release list`, 'a range is two of the listed releases');
    return;
  }
  const expected = { good: range.good, bad: range.bad, llamacpp_tags: good.tag !== null && bad.tag !== null ? [good.tag, bad.tag] : null, links: { good: good.links, bad: bad.links, compare: compareLink(good, bad) } };
  if (JSON.stringify(expected) !== JSON.stringify(range)) add(at, `[bisect-links] the range's tags or links are not those of ${range.good} and ${range.bad}`, 'a range\'s tags and links are made from its two releases');
}

/** The search replayed over the recorded verdicts: it must ask for the comparisons recorded, in order, and end where the file says. */
async function replaySearch(bisection: Bisection, add: Add): Promise<void> {
  const steps = bisection.steps;
  let asked = 0;
  let clock = 0;
  let beyond = false;
  const replay = await bisectReleases(
    bisection.releases.map((r) => r.version),
    async (a, b) => {
      const step = steps[asked];
      if (step === undefined) {
        beyond = true;
        // Past the recorded steps: the original stopped here (budget); end the replay without a verdict.
        return { verdict: null, effect: null, interval: null };
      }
      if (step.a !== a || step.b !== b) add(`steps[${asked}]`, `[bisect-replay] compares ${step.a} → ${step.b}; the search asks for ${a} → ${b} here`, 'a bisection\'s steps are the ones its search made, in order');
      asked += 1;
      clock += step.wall_s * 1000;
      return step;
    },
    { budgetS: bisection.budget_s, now: () => clock },
  );
  if (asked < steps.length) add(`steps[${asked}]`, `[bisect-replay] the search ends after ${asked} comparisons; the file records ${steps.length}`, 'a bisection\'s steps are the ones its search made');
  const outcome = replay.outcome === 'stopped' ? (beyond ? 'budget' : bisection.outcome === 'interrupted' ? 'interrupted' : 'failed') : replay.outcome;
  // A budget is judged on the clock: the replay's clock leaves out the time between comparisons, so it may go one step further.
  const budgetAgrees = bisection.outcome === 'budget' && (outcome === 'budget' || beyond);
  if (!budgetAgrees && outcome !== bisection.outcome) add('outcome', `[bisect-replay] says ${bisection.outcome}; the search over its recorded verdicts ends ${outcome}`, 'the outcome is the search\'s over the verdicts its steps record');
  if (!budgetAgrees && (replay.range[0] !== bisection.range.good || replay.range[1] !== bisection.range.bad)) add('range', `[bisect-replay] says ${bisection.range.good} → ${bisection.range.bad}; the search narrows to ${replay.range[0]} → ${replay.range[1]}`, 'the range is the search\'s');
  if (bisection.direction !== replay.direction && !(outcome === 'budget' && replay.direction === null)) add('direction', `[bisect-replay] says ${shown(bisection.direction)}; the end-to-end verdict gives ${shown(replay.direction)}`, 'the direction is the end-to-end verdict followed');
  if (JSON.stringify(bisection.spread) !== JSON.stringify(replay.spread)) add('spread', '[bisect-replay] the spread steps are not the search\'s', 'spread records the steps where both halves changed');
}

/** The model as the A/B's command line gave it (--model): a bisection may name its model so. */
function modelArgument(ab: AbResult): string | undefined {
  const at = ab.command.lastIndexOf('--model');
  return at < 0 ? undefined : ab.command[at + 1];
}

/** Where a bisection is filed: with its A/Bs, under their model and host. */
interface Place {
  readonly hardware: string;
  readonly model: string;
}

function checkSteps(bisection: Bisection, lookup: AbLookup | null, placed: boolean, add: Add): Place | null {
  let hardware: string | null = null;
  let model: string | null = null;
  const versionOf = (version: string) => bisection.releases.find((r) => r.version === version);
  bisection.steps.forEach((step, index) => {
    const at = `steps[${index}]`;
    if (placed && (step.ab_sha256 === undefined || !SAFE_PATH.test(step.ab_file))) {
      add(`${at}.ab_file`, `[bisect-evidence] names ${shown(step.ab_file)}${step.ab_sha256 === undefined ? ' without its sha256' : ''}: in results/ each step names its filed A/B`, 'file the bisection with `servebench file-comparison`, which files its A/Bs and names each by path and sha256');
      return;
    }
    if (lookup === null) return;
    const found = lookup(step.ab_file);
    if (found === null) {
      add(`${at}.ab_file`, `[bisect-evidence] its A/B ${step.ab_file} is not in results/`, 'file the step\'s A/B with it (`servebench file-comparison` files them together)');
      return;
    }
    if (step.ab_sha256 !== undefined && found.sha256 !== step.ab_sha256) add(`${at}.ab_sha256`, `[bisect-evidence] ${step.ab_file} has sha256 ${found.sha256.slice(0, 12)}…, not ${step.ab_sha256.slice(0, 12)}…`, 'a filed A/B never changes; the bisection names the one it ran');
    const ab = found.ab;
    if (ab === null) {
      add(`${at}.ab_file`, `[bisect-evidence] its A/B ${step.ab_file} is not valid (see its own problems)`, 'a step rests on a valid A/B');
      return;
    }
    hardware ??= found.hardware;
    model ??= ab.model;
    if (found.hardware !== hardware) add(`${at}.ab_file`, `[bisect-evidence] ran on ${shown(found.hardware)}, the bisection's other steps on ${hardware}`, 'every step of a bisection runs on one host');
    const armOf = (version: string) => versionOf(version)?.tag ?? version;
    const same = ab.engine === bisection.engine && (ab.model === bisection.model || modelArgument(ab) === bisection.model) && ab.workload === bisection.workload && ab.metric === bisection.metric && ab.a.version === armOf(step.a) && ab.b.version === armOf(step.b);
    if (!same) add(`${at}.ab_file`, `[bisect-evidence] ${step.ab_file} compares ${ab.engine} ${ab.a.version} → ${ab.b.version} on ${ab.model}, ${ab.workload}, ${ab.metric}; the step ${step.a} → ${step.b} on ${bisection.model}, ${bisection.workload}, ${bisection.metric}`, 'a step names the A/B of its two releases on the bisection\'s configuration');
    const first = lookup(bisection.steps[0]!.ab_file)?.ab;
    if (first && JSON.stringify(first.load) !== JSON.stringify(ab.load)) add(`${at}.ab_file`, `[bisect-evidence] ran at ${shown(ab.load)}, the first step at ${shown(first.load)}`, 'every step of a bisection runs one load point');
    if (step.verdict !== ab.verdict || step.status !== ab.status || !close(step.effect, ab.effect) || !closePair(step.interval, ab.interval)) add(at, `[bisect-evidence] says ${shown(step.verdict)} ${shown(step.effect)} ${shown(step.interval)}; its A/B says ${shown(ab.verdict)} ${shown(ab.effect)} ${shown(ab.interval)}`, 'a step says what its A/B says');
  });
  return hardware === null || model === null ? null : { hardware, model };
}

async function checkBisection(bisection: Bisection, lookup: AbLookup | null, placed: boolean, add: Add): Promise<Place | null> {
  checkReleases(bisection, add);
  checkRange(bisection, bisection.range, 'range', add);
  if ((bisection.outcome === 'culprit' || bisection.outcome === 'spread') !== (bisection.culprit !== null)) add('culprit', `[bisect-range] outcome ${bisection.outcome} ${bisection.culprit === null ? 'without' : 'with'} a culprit`, 'culprit and spread name the culprit range (the range); no other outcome does');
  else if (bisection.culprit !== null && JSON.stringify(bisection.culprit) !== JSON.stringify(bisection.range)) add('culprit', '[bisect-range] the culprit is not the range narrowed to', 'the culprit is the range the search ended at');
  if (bisection.comparisons !== bisection.steps.length) add('comparisons', `[bisect-replay] counts ${bisection.comparisons} comparisons for ${bisection.steps.length} steps`, 'comparisons counts the steps');
  await replaySearch(bisection, add);
  return checkSteps(bisection, lookup, placed, add);
}

/**
 * Checks one comparison file's text. `relativePath`: its path under the results folder
 * (comparisons/…), or null for a file checked on its own (the path and, for a bisection, the
 * filed A/Bs are then not checked). `lookup` finds the filed A/Bs a bisection names.
 */
export async function checkComparisonText(file: string, text: string, relativePath: string | null, options: CheckOptions = {}, lookup: AbLookup | null = null): Promise<CheckedComparison> {
  const problems: ResultProblem[] = [];
  const add: Add = (path, message, fix) => problems.push({ file, path, message, fix });
  const bytes = Buffer.byteLength(text);
  const sha256 = bytes > MAX_COMPARISON_BYTES ? '' : createHash('sha256').update(text).digest('hex');
  const rejected = (kind: CheckedComparison['kind'] = null): CheckedComparison => ({ kind, ab: null, bisection: null, sha256, hardware: null, problems });
  if (bytes > MAX_COMPARISON_BYTES) {
    add('', limitRule(LIMIT_RULES.fileSize, `is ${bytes} bytes, over the ${MAX_COMPARISON_BYTES} a comparison may have`), 'an A/B holds at most its planned blocks\' runs: write it with `servebench ab`');
    return rejected();
  }
  if (relativePath !== null && !SAFE_PATH.test(relativePath)) {
    add('', `[result-path] the path "${relativePath.slice(0, 120)}" is not a comparison path`, 'comparison paths are comparisons/ then lower-case letters, digits, dots, dashes and slashes, ending in .json, as `servebench file-comparison` writes them');
    return rejected();
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    add('', `[json] not JSON: ${(error as Error).message.slice(0, 200)}`, 'a comparison file is the JSON `servebench ab` or `servebench bisect` wrote, unedited');
    return rejected();
  }
  const kind = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as { kind?: unknown }).kind : undefined;
  if (kind !== 'ab' && kind !== 'bisection') {
    add('kind', `[comparison-kind] kind ${shown(kind)} is not a comparison's (ab, bisection)`, 'results/comparisons/ holds only the files `servebench ab` and `servebench bisect` write; runs go in results/<day>/');
    return rejected();
  }
  const known = kind === 'ab' ? AB_SCHEMA_VERSIONS : [BISECTION_SCHEMA_VERSION];
  const version = (data as { schema_version?: unknown }).schema_version;
  if (!known.includes(version as number)) {
    add('schema_version', `[schema-version] schema_version ${shown(version)} is not one this validator knows for ${kind} (${known.join(', ')})`, 'write it with this harness version, or update servebench');
    return rejected(kind);
  }
  const tooDeep = tooDeepAt(data, MAX_COMPARISON_DEPTH);
  if (tooDeep !== null) {
    add(tooDeep.slice(0, 80), limitRule(LIMIT_RULES.nestingDepth, `nested deeper than ${MAX_COMPARISON_DEPTH} levels`), 'a comparison nests its runs and little else: write it with `servebench ab`');
    return rejected(kind);
  }
  const parsed = kind === 'ab' ? AbResultSchema.safeParse(data) : BisectionSchema.safeParse(data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues.slice(0, 50)) add(jsonPath(issue.path), `[schema] ${issue.message}`, `match the ${kind} schema (harness/contract/comparison.ts)`);
    return rejected(kind);
  }
  for (const finding of findCredentials(data)) add(finding.path, `[credential] holds a credential (${finding.what}); results are public`, 'remove it or replace it with <redacted> (servebench redacts these when it records)');
  const command = parsed.data.command;
  const writers = COMPARISON_WRITERS[kind];
  if (command[0] !== 'servebench' || !writers.includes(String(command[1]))) add('command', `[recorded-command] ${shown(command.slice(0, 2))} is not a command that writes a ${kind}`, `a ${kind} records the ${writers.map((w) => `\`servebench ${w}\``).join(' or ')} line that made it`);
  let place: Place | null;
  let ab: AbResult | null = null;
  let bisection: Bisection | null = null;
  if (kind === 'ab') {
    ab = parsed.data as AbResult;
    checkAb(ab, file, options, add, problems);
    place = { hardware: abHardware(ab), model: ab.model };
  } else {
    bisection = parsed.data as Bisection;
    // Placed in results/, a bisection is checked against the A/Bs filed there: none given, none found.
    place = await checkBisection(bisection, relativePath !== null ? (lookup ?? (() => null)) : lookup, relativePath !== null, add);
  }
  const hardware = place?.hardware ?? null;
  if (relativePath !== null && place !== null) {
    const expected = comparisonRelativePath((ab ?? bisection)!, text, place.hardware, sha256, place.model);
    if (expected !== relativePath) add('', `[path-matches-content] the path does not match the content: expected ${expected}`, `move the file to results/${expected} (the name carries the content's sha256; edited files no longer match)`);
  }
  return problems.length === 0 ? { kind, ab, bisection, sha256, hardware, problems } : { ...rejected(kind), hardware };
}
