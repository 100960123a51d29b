/**
 * One examination (examinations.ts): the paired A/B of the previous release against the new one
 * on the regressions' configuration, each regression's verdict from its runs, and, where releases
 * lie between the two and a regression is confirmed, the bisection that names the release that
 * changed it. The A/B is `servebench ab`'s procedure as bisect runs it (abComparator: each A/B
 * written whole into the examination's folder, llama.cpp built on first use), and it is also the
 * bisection's end-to-end comparison: the search starts from its verdict rather than measuring the
 * same two releases again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringOption, type RawOptions } from '../../lib/cli/options.ts';
import { ServebenchError } from '../../lib/errors.ts';
import { writeNewFileAtomic } from '../../lib/io/atomic-write.ts';
import { bisectReleases, type Compare } from '../../lib/bisect-search.ts';
import type { Engine } from '../../contract/engine.ts';
import type { AbResult } from '../../measure/ab/ab-result.ts';
import { loadEngine } from '../../measure/engines/spec-file.ts';
import { runCommand } from '../../measure/run/command.ts';
import { abComparator, type Builds, type StepComparison } from '../bisect/ab-comparator.ts';
import { assembleBisection } from '../bisect/assemble-bisection.ts';
import type { Bisection } from '../bisect/bisection.ts';
import { listReleases, releasePreparation, type ReleaseSourceDeps } from '../bisect/release-source.ts';
import type { ReleaseList } from '../bisect/releases.ts';
import type { AlertRegression } from '../regressions/report.ts';
import { armOptionsOf } from './configuration.ts';
import type { BisectionSummary, Confirmation, ConfirmationReason, PairedSummary } from './confirmations.ts';
import type { Examination } from './examinations.ts';
import { metricVerdict } from './metric-verdict.ts';

export interface ExamineContext {
  /** ab's design options (effect, margin, pilot and blocks), the same for every A/B of the run. */
  readonly design: RawOptions;
  readonly resultsDir: string;
  /** This runner's GPU set (replaces the regressed run's --gpu); null: as recorded. */
  readonly gpu: string | null;
  /** --releases: the versions between for engines without a registry; null when not given. */
  readonly releases: readonly string[] | null;
  readonly dummyShapes: readonly string[];
  readonly signal: AbortSignal;
  /** The confirmations file's folder (its entries name files relative to it) and this examination's own folder in it (the A/Bs and the bisection). */
  readonly outDir: string;
  readonly examDir: string;
  /** The command line, recorded in the bisection. */
  readonly command: readonly string[];
  /** Seconds left of the budget when this examination starts; null: no budget. */
  readonly budgetLeftS: number | null;
  readonly deps?: ReleaseSourceDeps;
  readonly progress: (line: string) => void;
  /** Milliseconds, monotonic (performance.now by default). */
  readonly now?: () => number;
}

export interface ExaminationOutcome {
  readonly confirmations: readonly Confirmation[];
  /** Whether an A/B ran (or started), and how long it took in seconds: the next examination's estimate. */
  readonly abWallS: number | null;
  readonly bisected: boolean;
  /** A run failed (or the configuration could not be rebuilt): the command exits 1. */
  readonly failed: boolean;
  readonly interrupted: boolean;
}

const relativeTo = (outDir: string, path: string) => (path.startsWith(`${outDir}/`) ? path.slice(outDir.length + 1) : path);

/** A regression's entry; everything but what the A/B and bisection found. */
export function confirmationOf(regression: AlertRegression, groupKey: string, reason: ConfirmationReason, detail: string, paired: PairedSummary | null = null, bisection: BisectionSummary | null = null): Confirmation {
  const { key, engine, previous_version, version, model, hardware, workload, load, metric, better, change_pct } = regression;
  return { key, group_key: groupKey, engine, previous_version, version, model, hardware, workload, load, metric, better, change_pct, status: reason === 'slower' ? 'confirmed' : 'not confirmed', reason, detail, paired, bisection };
}

/** Every regression of the examination left with the same reason: nothing was measured for them. */
export function unmeasured(exam: Examination, reason: ConfirmationReason, detail: string): ExaminationOutcome {
  return { confirmations: exam.regressions.map((r) => confirmationOf(r, exam.groupKey, reason, detail)), abWallS: null, bisected: false, failed: reason === 'failed', interrupted: reason === 'interrupted' };
}

const percent = (value: number | null) => (value === null ? '–' : `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)}%`);

function describeVerdict(paired: Omit<PairedSummary, 'file'>): string {
  const interval = paired.interval === null ? '' : `, 95% interval [${percent(paired.interval[0])}, ${percent(paired.interval[1])}]`;
  const passes = paired.passes.map((p) => `${p.name} ${p.verdict ?? '–'}`).join(', ');
  return `paired A/B: ${paired.verdict} (${passes}): ${percent(paired.effect)}${interval}${paired.derived ? ` (on the runs of the ${paired.ab_metric} A/B)` : ''}`;
}

async function prepared(exam: Examination, context: ExamineContext): Promise<{ raw: RawOptions; engine: Engine; list: ReleaseList; launcher: string | undefined } | { problem: string }> {
  const arm = armOptionsOf(exam.regressions[0]!, context.resultsDir, context.gpu);
  if ('problem' in arm) return arm;
  try {
    const engine = loadEngine(String(arm.raw['engine']));
    if (engine.name !== exam.engine) return { problem: `${arm.runFile} ran engine ${engine.name}, the regression names ${exam.engine}` };
    // An engine without a registry has no releases between the two unless --releases lists them.
    const listed = context.releases ?? (engine.source.npm === undefined ? [] : null);
    const list = await listReleases(engine, exam.previous_version, exam.version, listed, { flag: '--releases', ...(context.deps ? { deps: context.deps } : {}), progress: context.progress });
    return { raw: { ...arm.raw, ...context.design, metric: exam.metric }, engine, list, launcher: stringOption(runCommand.spec, arm.raw, 'launcher') };
  } catch (error) {
    if (!(error instanceof ServebenchError)) throw error;
    return { problem: error.message };
  }
}

/**
 * Runs the examination. A ServebenchError while planning an A/B (an option the recorded command
 * has that this checkout refuses, an engine without --engine-version) fails this examination only.
 */
export async function examine(exam: Examination, context: ExamineContext): Promise<ExaminationOutcome> {
  const now = context.now ?? (() => performance.now());
  const ready = await prepared(exam, context);
  if ('problem' in ready) return unmeasured(exam, 'failed', ready.problem);
  const { raw, engine, list, launcher } = ready;
  const builds: Builds = { built: [], cached: [] };
  // The comparator's lines say "bisect:"; here each is one of confirm's.
  const progress = (line: string) => context.progress(line.replace(/^bisect: /, 'confirm: '));
  const comparator = (metric: string, abDir: string) =>
    abComparator({ raw: { ...raw, metric }, dummyShapes: context.dummyShapes, signal: context.signal, abDir, outDir: context.examDir, progress, ...releasePreparation(engine, launcher, list, builds, progress) });
  const versions = list.releases.map((release) => release.version);
  const [good, bad] = [versions[0]!, versions.at(-1)!];

  const began = now();
  // One comparator for the A/B and the bisection on its metric: it numbers the files it writes.
  const designed = comparator(exam.metric, context.examDir);
  let step: StepComparison;
  try {
    step = await designed(good, bad);
  } catch (error) {
    if (!(error instanceof ServebenchError)) throw error;
    return unmeasured(exam, 'failed', error.message);
  }
  const abWallS = (now() - began) / 1000;
  // Named relative to the examination's folder, where its bisection file lies too.
  const abFile = join(context.examDir, step.ab_file);
  const ab = JSON.parse(readFileSync(abFile, 'utf8')) as AbResult;
  const interrupted = ab.status === 'interrupted';
  const failed = ab.status === 'failed';

  const judged = exam.regressions.map((regression) => {
    if (interrupted || failed) return confirmationOf(regression, exam.groupKey, ab.status as 'failed' | 'interrupted', `the A/B ${step.stopped ?? ab.status}`, null);
    const verdict = metricVerdict(ab, regression.metric, regression.better);
    if (typeof verdict === 'string') return confirmationOf(regression, exam.groupKey, 'not examined', `the A/B's runs have no verdict on ${regression.metric}: ${verdict}`);
    const paired: PairedSummary = { file: relativeTo(context.outDir, abFile), ...verdict };
    return confirmationOf(regression, exam.groupKey, verdict.verdict!, describeVerdict(verdict), paired);
  });
  const confirmed = judged.filter((c) => c.status === 'confirmed');
  if (confirmed.length === 0 || versions.length <= 2 || context.signal.aborted) return { confirmations: judged, abWallS, bisected: false, failed, interrupted };

  const budgetLeftS = context.budgetLeftS === null ? null : context.budgetLeftS - abWallS;
  if (budgetLeftS !== null && budgetLeftS <= 0) {
    const note = `; ${versions.length - 2} releases lie between, not bisected: the budget was spent`;
    return { confirmations: judged.map((c) => (c.status === 'confirmed' ? { ...c, detail: c.detail + note } : c)), abWallS, bisected: false, failed, interrupted };
  }
  // Bisected on the design metric when it is confirmed (its A/B is the end-to-end step), else on the first confirmed one.
  const metric = confirmed.some((c) => c.metric === exam.metric) ? exam.metric : confirmed[0]!.metric;
  const reuse = metric === exam.metric;
  const next = reuse ? designed : comparator(metric, join(context.examDir, `bisect-${metric}`));
  // The reused A/B counts in the search's clock as the time it took, so its budget estimate holds.
  let offsetMs = 0;
  let first = reuse;
  const compare: Compare<StepComparison> = async (a, b) => {
    if (first) {
      first = false;
      offsetMs += abWallS * 1000;
      return step;
    }
    return next(a, b);
  };
  const searchStart = new Date();
  const search = await bisectReleases(versions, compare, { budgetS: budgetLeftS === null ? null : budgetLeftS + (reuse ? abWallS : 0), now: () => now() + offsetMs });
  const bisection: Bisection = assembleBisection(search, {
    started_at: searchStart.toISOString(),
    command: context.command,
    engine: ab.engine,
    model: ab.model,
    workload: ab.workload,
    metric,
    better: exam.regressions.find((r) => r.metric === metric)!.better,
    list,
    builds,
    budgetS: budgetLeftS === null ? null : Math.max(1, Math.round(budgetLeftS)),
  });
  const bisectionFile = join(context.examDir, `bisection-${metric}.json`);
  await writeNewFileAtomic(bisectionFile, `${JSON.stringify(bisection, null, 2)}\n`);
  const summary: BisectionSummary = { file: relativeTo(context.outDir, bisectionFile), metric, outcome: bisection.outcome, direction: bisection.direction, range: bisection.range, culprit: bisection.culprit, comparisons: bisection.comparisons, wall_s: bisection.wall_s };
  return {
    confirmations: judged.map((c) => (c.status === 'confirmed' ? { ...c, bisection: summary } : c)),
    abWallS,
    bisected: true,
    failed: failed || bisection.outcome === 'failed',
    interrupted: interrupted || bisection.outcome === 'interrupted',
  };
}
