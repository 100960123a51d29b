/**
 * The fleet's held_equal as `plan` applies it: resolved per matrix entry (the batch cap from the
 * entry's sweeps), checked against every engine of the entry (an engine that cannot honour a held
 * value is refused with its file's reason, never run on its own default), and turned into the
 * `servebench run` flags each job carries, so its result records what was held.
 */
import { renderServeCommand } from '../../measure/engines/render.ts';
import { ServebenchError } from '../../lib/errors.ts';
import type { Engine, ServeParameters } from '../../contract/engine.ts';
import type { Fleet, MatrixEntry } from '../../contract/fleet.ts';
import type { Workload } from '../../contract/workload.ts';
import { HELD_EQUAL_FLAGS, HELD_EQUAL_NAMES, TOP_CONCURRENCY, heldServeValue, resolveHeldEqual, topConcurrency, type HeldEqual } from '../../contract/held-equal.ts';

/**
 * The entry's held values with the batch cap made a number, or the problem (a sweep-less entry
 * asked for its top concurrency, a fixed cap below it). `loads`: the effective loads of the
 * entry's workloads (plan.ts effectiveLoad: the fleet's sweep where it overrides the workload's).
 */
export function entryHeldEqual(fleet: Fleet, entry: MatrixEntry, loads: ReadonlyArray<Workload['load']>): { held: HeldEqual } | { problem: string } {
  const held = resolveHeldEqual(fleet.held_equal, entry.held_equal);
  if (held.max_num_seqs === null) return { held };
  const top = topConcurrency(loads);
  if (held.max_num_seqs === TOP_CONCURRENCY) {
    if (top === null) return { problem: `held_equal.max_num_seqs: ${TOP_CONCURRENCY}, but no workload of this entry has a concurrency sweep (open-loop rates only); give the batch cap as a number` };
    return { held: { ...held, max_num_seqs: top } };
  }
  if (top !== null && held.max_num_seqs < top) {
    return { problem: `held_equal.max_num_seqs ${held.max_num_seqs} is below this entry's top concurrency ${top}: engines would queue requests the load counts as running; raise it to at least ${top} or use ${TOP_CONCURRENCY}` };
  }
  return { held };
}

/** The held values as serve parameters (null: not held, left out). */
export function heldServeParameters(held: HeldEqual): ServeParameters {
  const params: ServeParameters = {};
  for (const name of HELD_EQUAL_NAMES) {
    const value = held[name];
    if (value !== null && value !== TOP_CONCURRENCY) params[name] = heldServeValue(name, value);
  }
  return params;
}

/**
 * Why the engine cannot honour one of the held values (its file's reason, or the value it has no
 * spelling for), or null. Each parameter is rendered alone, so the reason names that one.
 */
export function heldEqualProblem(engine: Engine, held: HeldEqual): { parameter: string; value: string; reason: string } | null {
  const params = heldServeParameters(held);
  for (const name of HELD_EQUAL_NAMES) {
    if (params[name] === undefined) continue;
    try {
      renderServeCommand(engine, { model: 'model', [name]: params[name] });
    } catch (error) {
      if (!(error instanceof ServebenchError)) throw error;
      return { parameter: name, value: String(held[name]), reason: error.message };
    }
  }
  return null;
}

/** The refusal as plan and loadFleet say it: entry, engine, parameter, the engine's reason, and the fix. */
export function describeHeldEqualProblem(entry: MatrixEntry, engine: string, problem: { parameter: string; value: string; reason: string }): string {
  return (
    `${entry.name ? `"${entry.name}": ` : ''}engine ${engine} cannot hold ${problem.parameter} ${problem.value} (${problem.reason}); ` +
    `run ${engine} in an entry of its own with held_equal.${problem.parameter} overridden (null: its default, said in a comment), or remove it from this entry`
  );
}

/** The `servebench run` flags of the held values the model fields do not already carry (batch cap and KV dtype do). */
export function heldArgv(held: HeldEqual): string[] {
  const argv: string[] = [];
  for (const name of ['prefix_caching', 'kv_budget_tokens', 'sampling'] as const) {
    const value = held[name];
    if (value !== null) argv.push(HELD_EQUAL_FLAGS[name], String(value));
  }
  return argv;
}

/** Whether anything is held (a fleet without held_equal plans exactly what it planned before). */
export function holdsAnything(held: HeldEqual): boolean {
  return HELD_EQUAL_NAMES.some((name) => held[name] !== null);
}
