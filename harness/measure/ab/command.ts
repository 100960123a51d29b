/**
 * `servebench ab`: a paired A/B of two releases of one engine on this host (issue 28). Flags →
 * design and both arms' run plans (bad input refused before any launch) → the procedure
 * (procedure.ts), each arm run a fresh launch → one JSON written whole, also when an arm failed or
 * a signal stopped it → the summary (or the JSON) → exit status.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { booleanOption, parseCommandArgs, stringOption, type Command } from '../../lib/cli/options.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { redactArgv } from '../../contract/credentials.ts';
import { deliverResult } from '../load/deliver-result.ts';
import { stopLaunchedOnSignal } from '../run/stop-launched.ts';
import { AB_SPEC } from './ab-options.ts';
import type { AbDesign } from './ab-design.ts';
import { planAb, runPlannedAb } from './run-ab.ts';
import { formatAbSummary } from './summary.ts';

/** ./ab-<engine>-<a>-vs-<b>-<UTC time>.json, each part made safe as one file name. */
export function defaultAbFileName(engine: string, design: Pick<AbDesign, 'a' | 'b'>, startedAt: Date): string {
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '_');
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `ab-${safe(engine)}-${safe(design.a)}-vs-${safe(design.b)}-${stamp}.json`;
}

/** `dummyShapes`: the embedded engine's dummy shape names (its accuracy task is skipped on them), handed in by the CLI as for run. */
export function createAbCommand(dummyShapes: readonly string[] = []): Command {
  return { spec: AB_SPEC, run: (argv) => abWith(argv, dummyShapes) };
}

export const abCommand: Command = createAbCommand();

async function abWith(argv: readonly string[], dummyShapes: readonly string[]): Promise<number> {
  const raw = parseCommandArgs(AB_SPEC, argv);
  const planned = await planAb(raw, dummyShapes);
  const { design, plans } = planned;
  const out = resolve(stringOption(AB_SPEC, raw, 'out') ?? defaultAbFileName(plans.A.engine.name, design, new Date()));
  // Before hours of measuring, not after: an A/B's output is never overwritten.
  if (existsSync(out)) throw usageError(`--out: ${out} already exists; an A/B's output is never overwritten: choose another --out`);
  const progress = !booleanOption(raw, 'no-progress');
  const versions = { A: design.a, B: design.b };
  const stop = stopLaunchedOnSignal('stopping the A/B and its server');
  try {
    const ab = await runPlannedAb(planned, {
      signal: stop.signal,
      command: ['servebench', 'ab', ...redactArgv(argv)],
      onArm: (label, arm, outcome) => {
        if (progress) process.stderr.write(`ab: ${label} ${versions[arm]}: ${outcome}\n`);
      },
    });
    const delivered = await deliverResult({ text: `${JSON.stringify(ab, null, 2)}\n`, path: out, json: booleanOption(raw, 'json'), summary: () => formatAbSummary(ab) });
    if (delivered.exitCode !== null) return delivered.exitCode;
    if (ab.status === 'interrupted') return stop.exitCode() ?? EXIT.interrupted;
    if (ab.status === 'failed') {
      process.stderr.write(`servebench: ab: arm ${ab.stopped!.arm} failed at ${ab.stopped!.stage} block ${ab.stopped!.block + 1}: ${ab.stopped!.message}; no verdict (the runs so far are kept in ${out})\n`);
      return EXIT.thresholdExceeded;
    }
    return EXIT.ok;
  } finally {
    stop.dispose();
  }
}
