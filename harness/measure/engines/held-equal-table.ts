/**
 * What `servebench engines show NAME` prints under the spec: for each parameter the fleet holds
 * equal, what this engine is launched with for each value (the flags its file renders, the settings
 * file keys, or the request fields it always holds), or why it cannot honour it. Rendered by the
 * same code `run` launches with, so the table cannot drift from the command.
 */
import { ServebenchError } from '../../lib/errors.ts';
import type { Engine, ServeParameters } from '../../contract/engine.ts';
import { HELD_EQUAL_NAMES, type HeldEqualName } from '../../contract/held-equal.ts';
import { CONFIG_FILE_PLACEHOLDER, renderConfigFile, renderServeCommand, shellQuote } from './render.ts';

/** The values shown for each parameter: every value of the fleet's vocabulary, and examples of the numbers. */
const SHOWN_VALUES: Readonly<Record<HeldEqualName, ReadonlyArray<string | number | boolean>>> = {
  prefix_caching: [true, false],
  max_num_seqs: [128],
  kv_budget_tokens: [196608],
  kv_cache_dtype: ['bf16', 'fp16', 'fp8', 'auto'],
  sampling: ['neutral'],
};

const BASE: ServeParameters = { model: 'MODEL' };

/** The pieces of `argv` that are not the base command's (the base is a subsequence of it). */
function added(base: readonly string[], argv: readonly string[]): string[] {
  const extra: string[] = [];
  let i = 0;
  for (const piece of argv) {
    if (i < base.length && base[i] === piece) i++;
    else extra.push(piece);
  }
  return extra;
}

/** Dotted keys of the settings file that differ from the base file's, as key: value. */
function configChanges(base: Record<string, unknown> | null, file: Record<string, unknown> | null, prefix = ''): string[] {
  if (file === null) return [];
  return Object.entries(file).flatMap(([key, value]) => {
    const before = base?.[key];
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return configChanges((before ?? {}) as Record<string, unknown>, value as Record<string, unknown>, `${prefix}${key}.`);
    }
    return JSON.stringify(before) === JSON.stringify(value) ? [] : [`${prefix}${key}: ${JSON.stringify(value)}`];
  });
}

function shownValue(name: HeldEqualName, value: string | number | boolean): string {
  return name === 'prefix_caching' ? (value ? 'on' : 'off') : String(value);
}

/** How the engine is launched for one held value, or why it cannot be. */
function howFor(engine: Engine, name: HeldEqualName, value: string | number | boolean): string {
  const always = engine.serve.held_always[name];
  if (always !== undefined) return `always: ${always}`;
  try {
    const base = renderServeCommand(engine, BASE);
    const argv = renderServeCommand(engine, { ...BASE, [name]: value });
    const flags = added(base, argv);
    const settings = configChanges(renderConfigFile(engine, BASE), renderConfigFile(engine, { ...BASE, [name]: value })).map((change) => `${CONFIG_FILE_PLACEHOLDER} ${change}`);
    const how = [...(flags.length > 0 ? [shellQuote(flags)] : []), ...settings];
    return how.length > 0 ? how.join('; ') : "nothing passed: the engine's default is this value";
  } catch (error) {
    if (error instanceof ServebenchError) return `cannot: ${error.message}`;
    throw error;
  }
}

/** The held-equal table of an engine, one line per parameter and value. */
export function heldEqualTable(engine: Engine): string {
  const width = Math.max(...HELD_EQUAL_NAMES.map((n) => n.length));
  const lines = [`held equal (fleet/fleet.yaml held_equal): how ${engine.name} gets each value`];
  for (const name of HELD_EQUAL_NAMES) {
    const reason = engine.serve.unsupported[name];
    if (reason !== undefined) {
      lines.push(`  ${name.padEnd(width)}  cannot: ${reason}`);
      continue;
    }
    SHOWN_VALUES[name].forEach((value, i) => lines.push(`  ${(i === 0 ? name : '').padEnd(width)}  ${shownValue(name, value)}: ${howFor(engine, name, value)}`));
  }
  return `${lines.join('\n')}\n`;
}
