/**
 * `servebench bisect` (issue 28): the release that changed performance. Flags → the A/B design
 * (checked before anything runs) and the release list (release-source.ts) → the search (harness/lib/bisect-search.ts), each
 * comparison `ab`'s procedure (ab-comparator.ts), building llama.cpp releases as the search reaches
 * them → one JSON written whole, with each comparison's A/B file beside it → summary → exit status.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { booleanOption, parseCommandArgs, stringOption, type Command, type RawOptions } from '../../lib/cli/options.ts';
import { parseDurationS } from '../../lib/cli/duration.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { redactArgv } from '../../contract/credentials.ts';
import type { Engine } from '../../contract/engine.ts';
import { abDesignOf } from '../../measure/ab/ab-design.ts';
import { loadEngine } from '../../measure/engines/spec-file.ts';
import { deliverResult } from '../../measure/load/deliver-result.ts';
import { stopLaunchedOnSignal } from '../../measure/run/stop-launched.ts';
import type { BundleLookup } from '../detect/detect-npm.ts';
import { abComparator, type Builds } from './ab-comparator.ts';
import { assembleBisection } from './assemble-bisection.ts';
import { BISECT_SPEC } from './bisect-options.ts';
import { formatBisectionSummary } from './bisection.ts';
import type { ReleaseList } from './releases.ts';
import { listReleases, releasePreparation } from './release-source.ts';
import { bisectReleases } from '../../lib/bisect-search.ts';

/** ./bisect-<engine>-<good>-<bad>-<UTC time>.json, each part made safe as one file name. */
export function defaultBisectFileName(engine: string, good: string, bad: string, startedAt: Date): string {
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '_');
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `bisect-${safe(engine)}-${safe(good)}-${safe(bad)}-${stamp}.json`;
}

export interface BisectDeps {
  /** Reads a node-llama-cpp tarball's llama.cpp tag (default: npm pack, as detect reads it). */
  readonly bundles?: BundleLookup;
}

function required(raw: RawOptions, name: string, what: string): string {
  const value = stringOption(BISECT_SPEC, raw, name)?.trim();
  if (value === undefined || value === '') throw usageError(`--${name} is required: ${what}; see \`servebench bisect --help\``);
  return value;
}

function releaseListOf(raw: RawOptions, engine: Engine, good: string, bad: string, deps: BisectDeps, progress: (line: string) => void): Promise<ReleaseList> {
  const listed = stringOption(BISECT_SPEC, raw, 'releases');
  return listReleases(engine, good, bad, listed === undefined ? null : listed.split(',').map((v) => v.trim()).filter((v) => v !== ''), { flag: '--releases', deps, progress });
}

/** `dummyShapes`: the embedded engine's dummy shape names, handed in by the CLI as for run and ab. */
export function createBisectCommand(dummyShapes: readonly string[] = [], deps: BisectDeps = {}): Command {
  return { spec: BISECT_SPEC, run: (argv) => bisectWith(argv, dummyShapes, deps) };
}

async function bisectWith(argv: readonly string[], dummyShapes: readonly string[], deps: BisectDeps): Promise<number> {
  const raw = parseCommandArgs(BISECT_SPEC, argv);
  const engine = loadEngine(required(raw, 'engine', 'the engine whose releases are bisected'));
  const good = required(raw, 'good', 'the older release, before the change');
  const bad = required(raw, 'bad', 'the newer release, after the change');
  if (good === bad) throw usageError(`--good and --bad are both ${good}: give the release before the change and the one after it`);
  // Checked now, not at the first comparison: the A/B options (metric, effect, margin, blocks).
  const design = abDesignOf({ ...raw, a: good, b: bad });
  const budgetText = stringOption(BISECT_SPEC, raw, 'budget');
  const budgetS = budgetText === undefined ? null : parseDurationS('budget', budgetText);
  const quiet = booleanOption(raw, 'no-progress');
  const progress = (line: string) => void (quiet || process.stderr.write(`${line}\n`));
  const list = await releaseListOf(raw, engine, good, bad, deps, progress);
  const versions = list.releases.map((release) => release.version);
  const startedAt = new Date();
  const out = resolve(stringOption(BISECT_SPEC, raw, 'out') ?? defaultBisectFileName(engine.name, good, bad, startedAt));
  const abDir = `${out.replace(/\.json$/, '')}.ab`;
  // Before hours of measuring: a bisection's output is never overwritten.
  for (const path of [out, abDir]) if (existsSync(path)) throw usageError(`--out: ${path} already exists; a bisection's output is never overwritten: choose another --out`);
  const builds: Builds = { built: [], cached: [] };
  const stop = stopLaunchedOnSignal('stopping the bisection and its server');
  try {
    const compare = abComparator({
      raw,
      dummyShapes,
      signal: stop.signal,
      abDir,
      outDir: dirname(out),
      progress,
      ...releasePreparation(engine, stringOption(BISECT_SPEC, raw, 'launcher'), list, builds, progress),
    });
    const search = await bisectReleases(versions, compare, { budgetS });
    const bisection = assembleBisection(search, {
      started_at: startedAt.toISOString(),
      command: ['servebench', 'bisect', ...redactArgv(argv)],
      engine: engine.name,
      model: stringOption(BISECT_SPEC, raw, 'model') ?? '',
      workload: stringOption(BISECT_SPEC, raw, 'workload') ?? '',
      metric: design.metric.column,
      better: design.metric.better,
      list,
      builds,
      budgetS,
    });
    const { outcome } = bisection;
    const delivered = await deliverResult({ text: `${JSON.stringify(bisection, null, 2)}\n`, path: out, json: booleanOption(raw, 'json'), summary: () => formatBisectionSummary(bisection) });
    if (delivered.exitCode !== null) return delivered.exitCode;
    if (outcome === 'interrupted') return stop.exitCode() ?? EXIT.interrupted;
    if (outcome === 'failed') return EXIT.thresholdExceeded;
    return EXIT.ok;
  } finally {
    stop.dispose();
  }
}
