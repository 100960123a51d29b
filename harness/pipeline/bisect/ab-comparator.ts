/**
 * The comparator a real bisection runs: `servebench ab`'s procedure (harness/measure/ab/: the A/A
 * pilot, ABBA blocks of fresh launches, the confirm pass) between two releases, with the A/B
 * options bisect was given. Each comparison's full A/B result, every arm's run in it, is written
 * beside the bisection (the evidence of each step's verdict), and bisect keeps its summary.
 * For an engine servebench builds itself (llama.cpp), a release is built just before its first
 * comparison: only the releases the search visits are built, and the build cache keeps them.
 */
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import type { RawOptions } from '../../lib/cli/options.ts';
import { writeNewFileAtomic } from '../../lib/io/atomic-write.ts';
import { AB_SPEC } from '../../measure/ab/ab-options.ts';
import type { BisectionStep } from '../../contract/comparison.ts';
import { planAb, runPlannedAb } from '../../measure/ab/run-ab.ts';
import { buildLlamaCpp, findLlamaCppBuild } from '../../measure/builds/llamacpp-build.ts';
import { registrySource } from '../../measure/builds/llamacpp-source.ts';
import type { BisectRelease } from './releases.ts';
import type { Comparison } from '../../lib/bisect-search.ts';

/** One step's comparison as the bisection records it: the A/B's summary and where its whole result is (relative to the bisection's file). */
export type StepComparison = Omit<BisectionStep, 'step' | 'side' | 'a' | 'b' | 'wall_s' | 'ab_sha256'> & Comparison;

/** A/B options bisect hands on unchanged: every option of ab's table except the arms and ab's own output. */
const NOT_HANDED_ON = new Set(['a', 'b', 'allow-aa', 'out', 'json', 'no-progress']);

/** The `servebench ab` command line of one comparison, as a person would rerun it. */
export function abArgv(raw: RawOptions, a: string, b: string, out: string): string[] {
  const argv = ['servebench', 'ab'];
  for (const option of AB_SPEC.options) {
    const value = raw[option.name];
    if (NOT_HANDED_ON.has(option.name) || value === undefined || value === false) continue;
    if (value === true) argv.push(`--${option.name}`);
    else for (const item of Array.isArray(value) ? value : [value]) argv.push(`--${option.name}`, item);
  }
  return [...argv, '--a', a, '--b', b, '--out', out];
}

export interface Builds {
  /** Releases built for this bisection (not found in the cache). */
  readonly built: string[];
  /** Releases found already built. */
  readonly cached: string[];
}

/**
 * Builds a release's llama.cpp unless the cache has a build of its tag (which run --engine-version
 * then finds by that tag, whichever node-llama-cpp release bundling it was built).
 */
export async function ensureLlamaCppBuild(release: BisectRelease, builds: Builds, progress: (line: string) => void): Promise<void> {
  const { version } = release;
  if (builds.built.includes(version) || builds.cached.includes(version)) return;
  if (findLlamaCppBuild(release.tag ?? version) !== null) {
    builds.cached.push(version);
    return;
  }
  progress(`bisect: building llama.cpp ${release.tag ?? ''} of node-llama-cpp ${version} (once; cached for later runs)`);
  const source = await registrySource(version);
  try {
    const { build, cached } = await buildLlamaCpp(source, { jobs: availableParallelism() });
    if (!cached) progress(`bisect: built llama.cpp ${build.tag} in ${build.build_seconds} s`);
    (cached ? builds.cached : builds.built).push(version);
  } finally {
    source.dispose();
  }
}

export interface AbComparatorContext {
  /** bisect's parsed options: the A/B and run options among them are handed to each comparison. */
  readonly raw: RawOptions;
  readonly dummyShapes: readonly string[];
  readonly signal: AbortSignal;
  /** Folder of the comparisons' A/B files, and the bisection file's folder they are named relative to. */
  readonly abDir: string;
  readonly outDir: string;
  /** Before a release's first comparison (llama.cpp: build it); absent for engines that need nothing. */
  readonly prepare?: (version: string) => Promise<void>;
  /** What run --engine-version is given for a release (llama.cpp: its tag, which names its build); default: the release itself. */
  readonly engineVersionOf?: (version: string) => string;
  readonly progress: (line: string) => void;
}

export function abComparator(context: AbComparatorContext): (a: string, b: string) => Promise<StepComparison> {
  let count = 0;
  return async (a, b) => {
    count += 1;
    await context.prepare?.(a);
    await context.prepare?.(b);
    const engineVersion = { A: context.engineVersionOf?.(a) ?? a, B: context.engineVersionOf?.(b) ?? b };
    const planned = await planAb({ ...context.raw, a: engineVersion.A, b: engineVersion.B }, context.dummyShapes);
    const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '_');
    const file = join(context.abDir, `${String(count).padStart(2, '0')}-${safe(a)}-vs-${safe(b)}.json`);
    const ab = await runPlannedAb(planned, {
      signal: context.signal,
      command: abArgv(context.raw, engineVersion.A, engineVersion.B, basename(file)),
      onArm: (label, arm, outcome) => context.progress(`bisect: ${a} vs ${b}: ${label} ${arm === 'A' ? a : b}: ${outcome}`),
    });
    await writeNewFileAtomic(file, `${JSON.stringify(ab, null, 2)}\n`);
    return {
      verdict: ab.verdict,
      effect: ab.effect,
      interval: ab.interval,
      status: ab.status,
      ab_file: file.startsWith(`${context.outDir}/`) ? file.slice(context.outDir.length + 1) : file,
      blocks_per_pass: ab.blocks_per_pass,
      sd_aa: ab.aa.sd_log_ratio,
      passes: ab.passes.map((pass) => ({ name: pass.name, verdict: pass.comparison?.verdict ?? null, effect: pass.comparison?.effect ?? null, interval: pass.comparison?.interval ?? null })),
      stopped: ab.stopped === null ? null : `${ab.status} at ${ab.stopped.stage} block ${ab.stopped.block + 1}, arm ${ab.stopped.arm}: ${ab.stopped.message}`,
    };
  };
}
