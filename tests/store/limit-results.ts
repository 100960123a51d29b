/**
 * SYNTHETIC result files grown to each limit of the store (harness/store/store-limits.ts), for
 * tests/store/limits.test.ts: a valid file of bench/lib/synthetic-results.ts, then one value
 * made as large, as deep or as long as a limit allows, or one step more. Nothing here was measured.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { parseBatch } from '../../harness/store/parse-batch.ts';
import { syntheticResult } from '../../bench/lib/synthetic-results.ts';

/** A valid one-point run; each seed (and day) gives another run_id and file. */
export function limitBase(seed: number, day = 1): RunResult {
  return syntheticResult({ engine: 'vllm', version: '0.11.0', model: 'synthetic/llama-8b', gpu: 'Synthetic H100', gpuCount: 1, workload: 'chat', date: new Date(Date.UTC(2026, 2, day, 12, 0, seed % 60)), concurrencies: [1], tpotMs: 10, ttftMs: 50, noise: 0.02, seed });
}

/** Pretty-printed, as `servebench run` writes a result. */
export const prettyJson = (result: RunResult): string => `${JSON.stringify(result, null, 2)}\n`;

/** Writes `text` at the path its content dictates under `dir`; returns that relative path. */
export function placeText(dir: string, text: string): string {
  const relative = resultRelativePath(JSON.parse(text) as RunResult, text);
  mkdirSync(dirname(join(dir, relative)), { recursive: true });
  writeFileSync(join(dir, relative), text);
  return relative;
}

/** The review's case: `--extra-body '{"logit_bias": {…150,000 token ids…}}'`, recorded in the command and in workload.extra_body. */
export function logitBiasResult(seed: number, entries = 150_000): RunResult {
  const result = limitBase(seed);
  const logitBias: Record<string, number> = {};
  for (let id = 0; id < entries; id++) logitBias[String(id)] = -100;
  result.workload.extra_body = { logit_bias: logitBias };
  result.harness.command = [...result.harness.command, '--extra-body', JSON.stringify({ logit_bias: logitBias })];
  return result;
}

/**
 * Compact JSON of exactly `bytes` bytes, grown by a `--dataset` argument of `"` characters (2
 * bytes each in the file, `\"`): the value that grows most when staged (`""` as text, `\""` in the
 * JSON array), so the file's runs row is the longest a file of this size can stage.
 */
export function quotesFileOf(seed: number, bytes: number): string {
  const result = limitBase(seed);
  result.harness.command = [...result.harness.command, '--dataset', ''];
  const base = Buffer.byteLength(JSON.stringify(result));
  const quotes = Math.floor((bytes - base) / 2);
  result.harness.command[result.harness.command.length - 1] = `${'"'.repeat(quotes)}${'x'.repeat(bytes - base - 2 * quotes)}`;
  const text = JSON.stringify(result);
  if (Buffer.byteLength(text) !== bytes) throw new Error(`quotesFileOf: ${Buffer.byteLength(text)} bytes, not ${bytes}`);
  return text;
}

/**
 * Compact JSON of about `bytes` bytes (within 8) that is mostly one --extra-body map of short
 * keys: the most objects a file of this size can hold, hence the most memory its check takes.
 */
export function mapFileOf(seed: number, bytes: number): string {
  const result = limitBase(seed);
  const map: Record<string, number> = {};
  let size = Buffer.byteLength(JSON.stringify(result)) + '{"m":}'.length + 2;
  for (let i = 0; size + 12 < bytes; i++) {
    const key = i.toString(36);
    map[key] = 0;
    size += key.length + 5;
  }
  result.workload.extra_body = { m: map };
  return JSON.stringify(result);
}

/** The bytes of the runs row the store stages for this file (as compile stages it). */
export function stagedRunRowBytes(text: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-staged-row-'));
  const relative = placeText(join(dir, 'results'), text);
  const runsPath = join(dir, 'runs.csv');
  const outcome = parseBatch({ files: [{ relativePath: relative, absolutePath: join(dir, 'results', relative) }], runsPath, pointsPath: join(dir, 'points.csv'), probesPath: join(dir, 'probes.csv') });
  if (outcome.verdicts[0]!.problems.length > 0) throw new Error(`stagedRunRowBytes: invalid file: ${JSON.stringify(outcome.verdicts[0]!.problems)}`);
  return readFileSync(runsPath).length - 1;
}

/**
 * A file whose staged runs row is exactly `rowBytes` long: a --dataset argument of `x` (3 bytes
 * a character in the row: as text, in the JSON array, in the reproduce line) and, for the
 * remainder, two or three `"` (7 bytes each: `""`, `\""` and `""`; the reproduce line quotes the
 * argument once, 2 bytes more, when it holds a `"`).
 */
export function stagedRowOf(seed: number, rowBytes: number): string {
  const result = limitBase(seed);
  result.harness.command = [...result.harness.command, '--dataset', 'x'];
  const base = stagedRunRowBytes(prettyJson(result)) - 3;
  const rest = rowBytes - base;
  // Quotes q with (rest − 7q − 2) divisible by 3, or none when rest is: 2 for a remainder of 1, 3 for 2.
  const quote = rest % 3 === 0 ? 0 : [2, 3].find((q) => (rest - 7 * q - 2) % 3 === 0)!;
  result.harness.command[result.harness.command.length - 1] = `${'x'.repeat((rest - 7 * quote - (quote > 0 ? 2 : 0)) / 3)}${'"'.repeat(quote)}`;
  const text = prettyJson(result);
  const staged = stagedRunRowBytes(text);
  if (staged !== rowBytes) throw new Error(`stagedRowOf: a ${staged}-byte row, not ${rowBytes}`);
  return text;
}

/** `levels` objects nested one in the other: {"a":{"a":…{"a":1}}}. */
export function nested(levels: number): Record<string, unknown> {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value as Record<string, unknown>;
}
