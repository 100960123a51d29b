/**
 * The measured false-alarm rate of `servebench ab` on this machine: N A/A procedures (one sim
 * release against itself), each the real procedure — A/A pilot, blocks, main and confirm pass —
 * every arm run a fresh launch of the sim with launch noise σ (each launch runs at exp(σ·z), z
 * its own), and the count of "faster" or "slower" verdicts with Wilson's 95% interval. Also, from
 * the same blocks: each single pass's verdict (unconfirmed) and each pass at margin 0 (the paired
 * t-test alone, whose false-alarm rate should be α itself if the test is calibrated on real runs).
 *
 *   npx tsx scripts/ab-false-alarms.ts --minutes 5                       # as many trials as fit
 *   npx tsx scripts/ab-false-alarms.ts --trials 40 -- --pilot-blocks 2 --blocks 4
 *
 * Arguments after -- go to each trial's ab (its defaults otherwise, on the smoke scenario at
 * concurrency 2). Exit status: 0 the trials ran; 1 an arm run failed; 2 bad usage; 130 SIGINT.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { parseCommandArgs } from '../harness/lib/cli/options.ts';
import { comparePaired, type PairedVerdict } from '../harness/lib/stats/paired.ts';
import { wilsonInterval } from '../harness/lib/stats/wilson-interval.ts';
import { AB_SPEC } from '../harness/measure/ab/ab-options.ts';
import { abDesignOf, type AbDesign } from '../harness/measure/ab/ab-design.ts';
import { planArm, runArm } from '../harness/measure/ab/arms.ts';
import { runAbProcedure, type ProcedureOutcome } from '../harness/measure/ab/procedure.ts';
import { stopLaunchedOnSignal } from '../harness/measure/run/stop-launched.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const ALARMS: readonly PairedVerdict[] = ['faster', 'slower'];

/** What one A/A trial said: the confirmed verdict, each pass's, and each pass's at margin 0. */
export interface TrialVerdicts {
  readonly verdict: PairedVerdict;
  readonly passes: readonly PairedVerdict[];
  readonly passesAtMarginZero: readonly PairedVerdict[];
}

export function trialVerdicts(outcome: ProcedureOutcome, design: AbDesign): TrialVerdicts {
  return {
    verdict: outcome.verdict!,
    passes: outcome.passes.map((pass) => pass.comparison!.verdict),
    passesAtMarginZero: outcome.passes.map((pass) => comparePaired(pass.blocks.map((b) => ({ a: b.a_value, b: b.b_value })), { better: design.metric.better, alpha: design.alpha, margin: 0 }).verdict),
  };
}

export interface AlarmRate {
  readonly alarms: number;
  readonly of: number;
  readonly rate: number | null;
  readonly interval: readonly [number, number] | null;
}

function rateOf(verdicts: readonly PairedVerdict[]): AlarmRate {
  const alarms = verdicts.filter((v) => ALARMS.includes(v)).length;
  return { alarms, of: verdicts.length, rate: verdicts.length === 0 ? null : alarms / verdicts.length, interval: wilsonInterval(alarms, verdicts.length) };
}

/** The three false-alarm rates over the trials. */
export function falseAlarmRates(trials: readonly TrialVerdicts[]): { confirmed: AlarmRate; singlePass: AlarmRate; marginZero: AlarmRate } {
  return {
    confirmed: rateOf(trials.map((t) => t.verdict)),
    singlePass: rateOf(trials.flatMap((t) => t.passes)),
    marginZero: rateOf(trials.flatMap((t) => t.passesAtMarginZero)),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const describeRate = (r: AlarmRate) => `${r.alarms} of ${r.of}${r.rate === null ? '' : ` (${pct(r.rate)}, Wilson 95% [${pct(r.interval![0])}, ${pct(r.interval![1])}])`}`;

/** The sim's engine spec (engines/sim.yaml) with launch noise σ and the given decode step, as a file of its own. */
function noisySim(runNoise: number, decodeBaseMs: number): string {
  const spec = parseYaml(readFileSync(join(REPO, 'engines/sim.yaml'), 'utf8')) as { name: string; description: string; serve: { command: string[] } };
  spec.name = 'sim-aa';
  spec.description = `the sim with launch noise σ ${runNoise} and ${decodeBaseMs} ms decode steps, for measuring ab's false alarms`;
  spec.serve.command = [...spec.serve.command, '--run-noise', String(runNoise), '--decode-base-ms', String(decodeBaseMs)];
  const path = join(mkdtempSync(join(tmpdir(), 'sb-ab-false-alarms-')), 'sim-aa.yaml');
  writeFileSync(path, stringifyYaml(spec));
  return path;
}

async function main(argv: readonly string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const { values } = parseArgs({
    args: [...(dash < 0 ? argv : argv.slice(0, dash))],
    options: { trials: { type: 'string', default: '1000' }, minutes: { type: 'string' }, 'run-noise': { type: 'string', default: '0.05' }, 'decode-base-ms': { type: 'string', default: '3' }, version: { type: 'string', default: '1.2.0' } },
    strict: true,
  });
  const trials = Number(values.trials);
  const budgetMs = values.minutes === undefined ? Number.POSITIVE_INFINITY : Number(values.minutes) * 60_000;
  const runNoise = Number(values['run-noise']);
  if (!(Number.isInteger(trials) && trials >= 1) || !(budgetMs > 0) || !(runNoise >= 0)) {
    process.stderr.write('ab-false-alarms: --trials N (≥ 1), --minutes M (> 0), --run-noise σ (≥ 0)\n');
    return 2;
  }
  const engine = noisySim(runNoise, Number(values['decode-base-ms']));
  const abArgv = ['--engine', engine, '--a', values.version, '--b', values.version, '--allow-aa', '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '2', '--tokenizer', 'tests/fixtures/tokenizer-words', ...(dash < 0 ? [] : argv.slice(dash + 1))];
  const raw = parseCommandArgs(AB_SPEC, abArgv);
  const design = abDesignOf(raw);
  const plan = await planArm(raw, design.a, []);
  const stop = stopLaunchedOnSignal('stopping the A/A trials and the server');
  const started = performance.now();
  const done: TrialVerdicts[] = [];
  let armRuns = 0;
  try {
    while (done.length < trials && performance.now() - started < budgetMs) {
      const outcome = await runAbProcedure(design, async () => {
        armRuns += 1;
        return runArm(plan, design.metric.column, stop.signal);
      });
      if (outcome.stopped) {
        process.stderr.write(`trial ${done.length + 1}: ${outcome.stopped.stage} block ${outcome.stopped.block + 1} arm ${outcome.stopped.arm}: ${outcome.stopped.message}\n`);
        return stop.exitCode() ?? 1;
      }
      const trial = trialVerdicts(outcome, design);
      done.push(trial);
      const passes = outcome.passes.map((pass, i) => `${pass.name} ${pass.comparison!.verdict} ${pct(pass.comparison!.effect!)} (margin 0: ${trial.passesAtMarginZero[i]})`).join(', ');
      process.stdout.write(`trial ${done.length}: σ_AA ${outcome.sdLogRatio!.toFixed(4)}, ${outcome.blocksPerPass} blocks per pass; ${passes}; verdict ${trial.verdict}\n`);
    }
  } finally {
    stop.dispose();
  }
  const rates = falseAlarmRates(done);
  const minutes = (performance.now() - started) / 60_000;
  process.stdout.write(
    [
      '',
      `A/A trials: ${done.length}, ${armRuns} arm runs (each a fresh launch), ${minutes.toFixed(1)} min; sim launch noise σ ${runNoise}; ab ${abArgv.slice(2).join(' ')}`,
      `verdict ${design.confirm ? '(confirmed: both passes agree)' : '(one pass: --no-confirm)'} faster or slower: ${describeRate(rates.confirmed)}; α = ${design.alpha}`,
      `single pass (main or confirm, unconfirmed) faster or slower: ${describeRate(rates.singlePass)}`,
      `single pass at margin 0 (the paired t-test alone; calibrated if ≈ α): ${describeRate(rates.marginZero)}`,
      '',
    ].join('\n'),
  );
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
