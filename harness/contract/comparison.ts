/**
 * The two comparison kinds results/ holds beside runs (issue 28), one definition each:
 * - an A/B (`servebench ab`): two releases of one engine on one host, interleaved blocks of fresh
 *   launches, every arm's whole run result kept, the paired comparison of each pass and the verdict;
 * - a bisection (`servebench bisect`): the releases between two, each step's A/B named by its file
 *   (and, once filed into results/, by that file's sha256), the outcome and the culprit range.
 * They live under results/comparisons/ (comparisonRelativePath) so a run listing never reads one
 * as a run. The store checks them (harness/store/comparison-check.ts): each arm run as a run is
 * checked, and every number a verdict rests on recomputed.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { AB_METRICS } from './point-metric.ts';
import { LoadSchema, RunBlockSchema, RunResultSchema, type RunResult } from './result.ts';
import { hardwareLabel, slug } from './result-path.ts';
import { loadLabel } from './load-label.ts';

/**
 * 2: every block's two arms answered the same requests (blockPairing), which validate requires.
 * 1: written before that rule; accepted as filed, its unpaired blocks counted where it is published.
 */
export const AB_SCHEMA_VERSION = 2;
export const AB_SCHEMA_VERSIONS: readonly number[] = [1, AB_SCHEMA_VERSION];
export const BISECTION_SCHEMA_VERSION = 1;

/** The folder of results/ that holds comparisons; nothing else is under it. */
export const COMPARISONS_DIR = 'comparisons';

/**
 * An A/B holds (pilot + 2 passes × blocks) × 2 whole runs: 16 blocks a pass and 4 pilot blocks are 72
 * runs of ~40 KB each pretty-printed. The bound keeps a hostile file from costing more than a read.
 */
export const MAX_COMPARISON_BYTES = 32 * 1024 * 1024;

const count = z.number().int().nonnegative();
const finite = z.number();
const isoTime = z.iso.datetime({ offset: true });
const name = z.string().min(1).max(200);
const interval = z.tuple([finite, finite]);
const verdict = z.enum(['faster', 'slower', 'no change', 'inconclusive']);
const better = z.enum(['higher', 'lower']);

export const PairedComparisonSchema = z
  .object({
    blocks: count,
    mean_log_ratio: finite.nullable(),
    sd_log_ratio: z.number().nonnegative().nullable(),
    effect: finite.nullable(),
    interval: interval.nullable(),
    p: z.number().min(0).max(1).nullable(),
    verdict,
  })
  .strict();

/** What an A/B and a bisection both say of themselves: when, the command, and what was compared on which metric. */
export const ComparisonHeaderSchema = z.object({
  started_at: isoTime,
  finished_at: isoTime,
  /** The command line, credentials redacted; each arm's own `servebench run` line is in its result. */
  command: z.array(z.string().max(4096)).min(2).max(400),
  engine: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'an engine is named as its engines/*.yaml file'),
  model: name,
  workload: name,
  /** A compiled points column (harness/contract/metric-catalog.ts) a point has a value of. */
  metric: z.enum(AB_METRICS.map((m) => m.column) as [string, ...string[]]),
  better,
});

const AbBlockSchema = z
  .object({
    index: count,
    /** AA: a pilot block (A against A); AB and BA: the order the two arms of a pass's block ran in. */
    order: z.enum(['AA', 'AB', 'BA']),
    /** Arm A's run (in the pilot: the first of the two A runs). */
    a: RunResultSchema,
    /** Arm B's run (in the pilot: the second A run). */
    b: RunResultSchema,
    a_value: z.number().positive(),
    b_value: z.number().positive(),
    /** ln(b_value / a_value). */
    log_ratio: finite,
  })
  .strict();

const AbPassSchema = z
  .object({
    name: z.enum(['main', 'confirm']),
    blocks: z.array(AbBlockSchema).max(256),
    /** The paired t over this pass's blocks; null when the pass did not complete. */
    comparison: PairedComparisonSchema.nullable(),
  })
  .strict();

const AbStopSchema = z
  .object({
    stage: z.enum(['pilot', 'main', 'confirm']),
    block: count,
    arm: z.enum(['A', 'B']),
    message: z.string().max(2000),
    /** The arm run that failed or was interrupted, whole; its block's other run, if any, is in `partial_block`. */
    run: RunResultSchema,
    partial_block: RunResultSchema.nullable(),
  })
  .strict();

const AbArmSchema = z
  .object({
    /** The release asked for (--a, --b). */
    version: name,
    /** What its servers reported (run.engine.version of each arm run), distinct, in order. */
    reported: z.array(name).max(64),
  })
  .strict();

export const AbResultSchema = ComparisonHeaderSchema.extend({
  kind: z.literal('ab'),
  schema_version: z.union([z.literal(1), z.literal(AB_SCHEMA_VERSION)]),
  /** completed: every planned block ran and a verdict was reached; failed: an arm run failed; interrupted: a signal stopped it. */
  status: z.enum(['completed', 'failed', 'interrupted']),
  /** The one load point both arms ran. */
  load: LoadSchema,
  a: AbArmSchema,
  b: AbArmSchema,
  /** --b equal to --a (--allow-aa): a check of the procedure, whose right verdict is "no change" or "inconclusive". */
  aa_check: z.boolean(),
  unit: z.string().max(40),
  /** The relative change the blocks were sized to detect (--effect), at `power`. */
  effect_target: z.number().positive(),
  power: z.number().gt(0).lt(1),
  margin: z.number().min(0).lt(1),
  alpha: z.number().gt(0).lt(1),
  /** The A/A pilot: its blocks, their log ratios and their SD, σ, which sized the passes. */
  aa: z.object({ blocks: z.array(AbBlockSchema).max(64), ratios: z.array(finite).max(64), sd_log_ratio: z.number().nonnegative().nullable() }).strict(),
  /** Blocks per pass, and whether --blocks gave them or the pilot's σ did; null when the pilot did not complete. */
  blocks_per_pass: z.number().int().min(2).nullable(),
  blocks_from: z.enum(['pilot', 'option']),
  /** Whether a confirm pass was asked for (false: --no-confirm, the verdict is one pass's). */
  confirm: z.boolean(),
  passes: z.array(AbPassSchema).max(2),
  /** confirmVerdict of the two passes (of the main pass alone with --no-confirm); null unless completed. */
  verdict: verdict.nullable(),
  /** B against A over every block of every pass (paired t over all of them): exp(mean ln(B/A)) − 1; null unless completed. */
  effect: finite.nullable(),
  /** Its 95% interval; null unless completed. */
  interval: interval.nullable(),
  stopped: AbStopSchema.nullable(),
  /** The host the A/B ran on (as a run result records it), CPU steal over the whole procedure. */
  host: RunBlockSchema.shape.host,
}).strict();

const LinksSchema = z.object({ upstream: z.url({ protocol: /^https$/ }).nullable(), package: z.url({ protocol: /^https$/ }).nullable() }).strict();

const ReleaseSchema = z
  .object({
    /** What ab's --a/--b take: the node-llama-cpp release for llama.cpp, else the version itself. */
    version: name,
    /** The llama.cpp tag this release bundles; null for other engines. */
    tag: name.nullable(),
    links: LinksSchema,
  })
  .strict();

const RangeSchema = z
  .object({
    good: name,
    bad: name,
    /** The llama.cpp tags the two releases bundle; null for other engines. */
    llamacpp_tags: z.tuple([name, name]).nullable(),
    links: z.object({ good: LinksSchema, bad: LinksSchema, compare: z.url({ protocol: /^https$/ }).nullable() }).strict(),
  })
  .strict();

const SIDES = ['ends', 'good side', 'bad side'] as const;

const BisectionStepSchema = z
  .object({
    /** 0: the end-to-end confirmation; 1, 2, …: the bisection steps (two comparisons each). */
    step: count,
    side: z.enum(SIDES),
    a: name,
    b: name,
    verdict: verdict.nullable(),
    effect: finite.nullable(),
    interval: interval.nullable(),
    status: z.enum(['completed', 'failed', 'interrupted']),
    /** The step's A/B file: relative to the bisection file where bisect wrote it; in results/, its path under results/. */
    ab_file: z.string().min(1).max(400),
    /** Its sha256 once filed into results/ (servebench file-comparison): the file cannot change under the bisection. */
    ab_sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    blocks_per_pass: z.number().int().min(2).nullable(),
    sd_aa: z.number().nonnegative().nullable(),
    /** Each pass's verdict (main, confirm). */
    passes: z.array(z.object({ name: z.string().max(20), verdict: verdict.nullable(), effect: finite.nullable(), interval: interval.nullable() }).strict()).max(2),
    /** Why it has no verdict, when it stopped. */
    stopped: z.string().max(2000).nullable(),
    wall_s: z.number().nonnegative(),
  })
  .strict();

export const BISECTION_OUTCOMES = ['culprit', 'spread', 'not reproducible', 'inconclusive', 'budget', 'failed', 'interrupted'] as const;

export const BisectionSchema = ComparisonHeaderSchema.extend({
  kind: z.literal('bisection'),
  schema_version: z.literal(BISECTION_SCHEMA_VERSION),
  good: name,
  bad: name,
  releases: z.array(ReleaseSchema).min(2).max(1000),
  /** How --good and --bad were mapped to releases, releases left out as the same build. */
  notes: z.array(z.string().max(2000)).max(100),
  steps: z.array(BisectionStepSchema).max(200),
  outcome: z.enum(BISECTION_OUTCOMES),
  /** The end-to-end verdict followed; null when there was none to follow. */
  direction: z.enum(['faster', 'slower']).nullable(),
  /** The range narrowed to (for culprit and spread: the culprit's two releases). */
  range: RangeSchema,
  culprit: RangeSchema.nullable(),
  spread: z.array(z.object({ step: count, followed: z.enum(['good side', 'bad side']) }).strict()).max(100),
  comparisons: count,
  /** llama.cpp: releases built for this bisection, and those the build cache already had. */
  builds: z.object({ built: z.array(name).max(1000), cached: z.array(name).max(1000) }).strict(),
  budget_s: z.number().positive().nullable(),
  wall_s: z.number().nonnegative(),
}).strict();

/**
 * What the harness builds and reads, read-only all the way down (the schema's inferred types are
 * mutable; the values are never changed once made). A pair stays a pair; an arm's run stays the
 * RunResult every run reader takes.
 */
type Frozen<T> = T extends RunResult ? T : T extends readonly [infer A, infer B] ? readonly [Frozen<A>, Frozen<B>] : T extends readonly (infer U)[] ? readonly Frozen<U>[] : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;

export type ComparisonHeader = Frozen<z.infer<typeof ComparisonHeaderSchema>>;
export type AbResult = Frozen<z.infer<typeof AbResultSchema>>;
export type AbBlock = AbResult['passes'][number]['blocks'][number];
export type AbPass = AbResult['passes'][number];
export type AbStop = NonNullable<AbResult['stopped']>;
export type AbArm = AbResult['a'];
export type BlockOrder = AbBlock['order'];
export type Bisection = Frozen<z.infer<typeof BisectionSchema>>;
export type BisectionStep = Bisection['steps'][number];
export type BisectionOutcome = Bisection['outcome'];
export type Culprit = Bisection['range'];
export type BisectRelease = Bisection['releases'][number];

export const LLAMACPP_REPOSITORY = 'ggml-org/llama.cpp';
export const NODE_LLAMA_CPP_REPOSITORY = 'withcatai/node-llama-cpp';

/**
 * A node-llama-cpp release and the llama.cpp tag it bundles, with the pages a reader follows to see
 * what changed. The links are made here, never taken from a file: a bisection in results/ can only
 * point at these two repositories' own release pages.
 */
export function llamaCppRelease(version: string, tag: string): BisectRelease {
  return {
    version,
    tag,
    links: { upstream: `https://github.com/${LLAMACPP_REPOSITORY}/releases/tag/${tag}`, package: `https://github.com/${NODE_LLAMA_CPP_REPOSITORY}/releases/tag/v${version}` },
  };
}

/** A release of an engine servebench lists no registry for (the sim among them): no links. */
export function plainRelease(version: string): BisectRelease {
  return { version, tag: null, links: { upstream: null, package: null } };
}

/** Every change between two llama.cpp tags (GitHub's compare view); null unless both are llama.cpp releases. */
export function compareLink(good: BisectRelease, bad: BisectRelease): string | null {
  return good.tag !== null && bad.tag !== null ? `https://github.com/${LLAMACPP_REPOSITORY}/compare/${good.tag}...${bad.tag}` : null;
}


/** The host the comparison ran on, as a run's path names its hardware: a run's first arm says it. */
function hardwareOf(ab: AbResult): string {
  // Every A/B holds a run: its first block's, or (stopped before any block) the run that stopped it.
  return hardwareLabel((ab.passes[0]?.blocks[0] ?? ab.aa.blocks[0])?.a ?? ab.stopped!.run);
}

const digestOf = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Where a comparison lands in results/, derived from its content as a run's path is:
 * comparisons/<yyyy-mm-dd>/<engine>/<model>/<hardware>/ab-<workload>-<load>-<sha12>.json, and
 * bisect-<workload>-<metric>-<sha12>.json for a bisection (model and hardware: those of its steps' A/Bs,
 * so it is filed beside them).
 */
export function comparisonRelativePath(comparison: AbResult | Bisection, text: string, hardware: string, digest: string = digestOf(text), model: string = comparison.model): string {
  const day = comparison.started_at.slice(0, 10);
  const file = comparison.kind === 'ab' ? `ab-${slug(comparison.workload)}-${slug(loadLabel(comparison.load))}` : `bisect-${slug(comparison.workload)}-${slug(comparison.metric)}`;
  return join(COMPARISONS_DIR, day, slug(comparison.engine), slug(model.split('/').slice(-2).join('-')), slug(hardware), `${file}-${digest.slice(0, 12)}.json`);
}

export { hardwareOf as abHardware };

function armSent(run: RunResult): string {
  const point = run.points?.[0];
  return point === undefined ? 'no point' : `${point.requests_sent} request${point.requests_sent === 1 ? '' : 's'} (stopped on ${point.stop === 'count' ? 'its count' : '--duration'})`;
}

/**
 * Why a block's two runs are not a pair, or null. A paired comparison compares the same requests in
 * both arms: their points must have sent the same prompts (prompt_set_sha256 covers the prompts and
 * max_tokens in order). An arm that --duration stopped early answered a subset, and on a mixed
 * workload (cache misses and hits, short and long prompts) a subset's median is another quantity.
 */
export function blockPairing(a: RunResult, b: RunResult): string | null {
  const [pa, pb] = [a.points?.[0], b.points?.[0]];
  if (pa?.prompt_set_sha256 === pb?.prompt_set_sha256) return null;
  return `its arms answered different requests: A sent ${armSent(a)}, B sent ${armSent(b)}`;
}
