/**
 * `servebench confirm` (issue 28): a regress report's regressions confirmed, or not, by a paired
 * A/B on this host before anything alerts on them. Flags and the report (bad input refused before
 * anything runs) → the examinations (one A/B per release pair, configuration and load point),
 * each within what is left of the budget (examine.ts) → one JSON written whole, also when a run
 * failed or a signal stopped it, with every A/B and bisection beside it → summary → exit status.
 */
import { appendFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { booleanOption, parseCommandArgs, stringOption, type Command, type RawOptions } from '../../lib/cli/options.ts';
import { parseDurationS } from '../../lib/cli/duration.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { redactArgv } from '../../contract/credentials.ts';
import { abDesignOf } from '../../measure/ab/ab-design.ts';
import { deliverResult } from '../../measure/load/deliver-result.ts';
import { stopLaunchedOnSignal } from '../../measure/run/stop-launched.ts';
import { groupKey, scenarioOf } from '../regressions/keys.ts';
import { readRegressionReport } from '../regressions/report.ts';
import type { ReleaseSourceDeps } from '../bisect/release-source.ts';
import { CONFIRM_SPEC, DESIGN_OPTIONS } from './confirm-options.ts';
import { CONFIRMATIONS_SCHEMA_VERSION, type Confirmation, type Confirmations } from './confirmations.ts';
import { overBudget, planExaminations } from './examinations.ts';
import { examine, unmeasured, confirmationOf, type ExaminationOutcome } from './examine.ts';
import { confirmMarkdown, formatConfirmSummary } from './summary.ts';

const safe = (text: string) => text.replace(/[^A-Za-z0-9._=-]+/g, '_');

/** ./confirmations-<UTC time>.json */
export function defaultConfirmFileName(startedAt: Date): string {
  return `confirmations-${startedAt.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z')}.json`;
}

/** `dummyShapes`: the embedded engine's dummy shape names, handed in by the CLI as for run, ab and bisect. */
export function createConfirmCommand(dummyShapes: readonly string[] = [], deps: ReleaseSourceDeps = {}): Command {
  return { spec: CONFIRM_SPEC, run: (argv) => confirmWith(argv, dummyShapes, deps) };
}

const list = (text: string | undefined): string[] | null => (text === undefined ? null : text.split(',').map((v) => v.trim()).filter((v) => v !== ''));

function designOf(raw: RawOptions): RawOptions {
  const design: RawOptions = {};
  for (const name of DESIGN_OPTIONS) if (raw[name] !== undefined) design[name] = raw[name];
  // Checked now, not at the first A/B hours in: the same check ab makes (the releases here are stand-ins).
  abDesignOf({ ...design, a: 'A', b: 'B' });
  return design;
}

async function confirmWith(argv: readonly string[], dummyShapes: readonly string[], deps: ReleaseSourceDeps): Promise<number> {
  const raw = parseCommandArgs(CONFIRM_SPEC, argv);
  const regressionsFile = stringOption(CONFIRM_SPEC, raw, 'regressions');
  if (regressionsFile === undefined) throw usageError('confirm: --regressions FILE is required (the output of `servebench regress --json`, or - for standard input)');
  const design = designOf(raw);
  const budgetText = stringOption(CONFIRM_SPEC, raw, 'budget');
  const budgetS = budgetText === undefined ? null : parseDurationS('budget', budgetText);
  const hardware = list(stringOption(CONFIRM_SPEC, raw, 'hardware'));
  if (hardware !== null && hardware.length === 0) throw usageError('--hardware: give at least one hardware label prefix, e.g. cpu- (the CPU lane)');
  const resultsDir = resolve(stringOption(CONFIRM_SPEC, raw, 'results')!);
  const report = readRegressionReport(regressionsFile);
  const startedAt = new Date();
  const out = resolve(stringOption(CONFIRM_SPEC, raw, 'out') ?? defaultConfirmFileName(startedAt));
  const folder = `${out.replace(/\.json$/, '')}.confirm`;
  // Before hours of measuring: confirmations are never overwritten.
  for (const path of [out, folder]) if (existsSync(path)) throw usageError(`--out: ${path} already exists; confirmations are never overwritten: choose another --out`);
  const quiet = booleanOption(raw, 'no-progress');
  const progress = (line: string) => void (quiet || process.stderr.write(`${line}\n`));
  const command = ['servebench', 'confirm', ...redactArgv(argv)];

  const mine = report.regressions.filter((r) => hardware === null || hardware.some((prefix) => r.hardware.startsWith(prefix)));
  const plan = planExaminations(mine);
  const confirmations: Confirmation[] = plan.unmeasurable.map(({ regression, reason }) => confirmationOf(regression, groupKey(regression.engine, regression.version, scenarioOf(regression)), 'not examined', reason));
  const started = performance.now();
  const elapsedS = () => (performance.now() - started) / 1000;
  const abWalls: number[] = [];
  let bisections = 0;
  let failed = false;
  const stop = stopLaunchedOnSignal('stopping the confirmation and its server');
  try {
    for (const [index, exam] of plan.examinations.entries()) {
      const name = `${exam.engine} ${exam.previous_version} → ${exam.version} at ${exam.load}`;
      let outcome: ExaminationOutcome;
      const overrun = overBudget(elapsedS(), abWalls, budgetS);
      if (stop.signal.aborted) outcome = unmeasured(exam, 'interrupted', 'a stop signal came before its A/B');
      else if (overrun !== null) outcome = unmeasured(exam, 'not examined', overrun);
      else {
        progress(`confirm: ${name}: A/B on ${exam.metric} (${exam.regressions.length} regression${exam.regressions.length === 1 ? '' : 's'})`);
        outcome = await examine(exam, {
          design,
          resultsDir,
          gpu: stringOption(CONFIRM_SPEC, raw, 'gpu') ?? null,
          releases: list(stringOption(CONFIRM_SPEC, raw, 'releases')),
          dummyShapes,
          signal: stop.signal,
          outDir: dirname(out),
          examDir: join(folder, `${String(index + 1).padStart(2, '0')}-${safe(exam.engine)}-${safe(exam.previous_version)}-vs-${safe(exam.version)}-${safe(exam.load)}`),
          command,
          budgetLeftS: budgetS === null ? null : budgetS - elapsedS(),
          deps,
          progress,
        });
      }
      if (outcome.abWallS !== null) abWalls.push(outcome.abWallS);
      if (outcome.bisected) bisections += 1;
      failed ||= outcome.failed;
      confirmations.push(...outcome.confirmations);
    }
    const file: Confirmations = {
      kind: 'confirmations',
      schema_version: CONFIRMATIONS_SCHEMA_VERSION,
      status: stop.signal.aborted ? 'interrupted' : failed ? 'failed' : 'completed',
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      command,
      regressions_file: regressionsFile,
      results_dir: resultsDir,
      budget_s: budgetS,
      wall_s: Math.round(elapsedS() * 10) / 10,
      ab_runs: abWalls.length,
      bisections,
      confirmations,
    };
    const delivered = await deliverResult({ text: `${JSON.stringify(file, null, 2)}\n`, path: out, json: booleanOption(raw, 'json'), summary: () => formatConfirmSummary(file) });
    const markdown = stringOption(CONFIRM_SPEC, raw, 'markdown');
    // After the result is safe: a step summary that cannot be written loses nothing measured.
    if (markdown !== undefined) {
      try {
        appendFileSync(markdown, confirmMarkdown(file));
      } catch (error) {
        process.stderr.write(`servebench: confirm: cannot append to --markdown ${markdown} (${(error as Error).message})\n`);
      }
    }
    if (delivered.exitCode !== null) return delivered.exitCode;
    if (file.status === 'interrupted') return stop.exitCode() ?? EXIT.interrupted;
    return file.status === 'failed' ? EXIT.thresholdExceeded : EXIT.ok;
  } finally {
    stop.dispose();
  }
}
