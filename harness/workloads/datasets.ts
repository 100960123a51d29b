/**
 * Requests from files: ShareGPT conversations (a JSON array or JSONL; the first user turn is the
 * prompt, the reply that follows sets max_tokens, both measured with the model's tokenizer when
 * there is one) and traces of production traffic (JSONL of arrival time and lengths, replayed
 * with their real gaps). A bad file is a usage error naming the file, the line and the fix.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usageError } from '../errors.ts';
import type { Api } from '../schema/result.ts';
import type { Dataset } from '../schema/workload.ts';
import type { ModelTokenizer } from '../tokenizer/hf-tokenizer.ts';

export interface DatasetEntry {
  /** The prompt text (ShareGPT), or null (a trace has lengths only). */
  readonly text: string | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Arrival time in the trace, in ms (null for ShareGPT). */
  readonly timestampMs: number | null;
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const cache = new Map<string, DatasetEntry[]>();

export function datasetPath(path: string): string {
  return isAbsolute(path) ? path : resolve(REPO_ROOT, path);
}

function words(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

/** Items of a JSON array, or of JSONL (one JSON value per line), each with its line number. */
function readItems(file: string): Array<{ line: number; value: unknown }> {
  const text = readFileSync(file, 'utf8');
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let array: unknown[];
    try {
      array = JSON.parse(text) as unknown[];
    } catch (error) {
      throw usageError(`dataset ${file}: not valid JSON (${(error as Error).message})`);
    }
    return array.map((value, i) => ({ line: i + 1, value }));
  }
  const items: Array<{ line: number; value: unknown }> = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      items.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (error) {
      throw usageError(`dataset ${file}:${i + 1}: not a JSON line (${(error as Error).message})`);
    }
  });
  return items;
}

interface Turn {
  readonly speaker: string;
  readonly text: string;
}

function turnsOf(value: unknown): Turn[] | null {
  const item = value as { conversations?: unknown; conversation?: unknown; messages?: unknown } | null;
  const list = item?.conversations ?? item?.conversation ?? item?.messages;
  if (!Array.isArray(list)) return null;
  return list.flatMap((turn) => {
    const t = turn as { from?: unknown; role?: unknown; value?: unknown; content?: unknown };
    const speaker = String(t.from ?? t.role ?? '');
    const text = t.value ?? t.content;
    return typeof text === 'string' ? [{ speaker, text }] : [];
  });
}

const USER = new Set(['human', 'user']);
const ASSISTANT = new Set(['gpt', 'assistant', 'chatgpt', 'bard', 'model']);

function sharegpt(dataset: Dataset, file: string, api: Api, tokenizer: ModelTokenizer | null): DatasetEntry[] {
  const countInput = (text: string): number => {
    if (!tokenizer) return words(text);
    if (api === 'completions') return tokenizer.countPrompt(text);
    return tokenizer.countChat([{ role: 'user', content: text }]) ?? tokenizer.count(text);
  };
  const countOutput = (text: string): number => (tokenizer ? tokenizer.count(text) : words(text));
  const entries: DatasetEntry[] = [];
  for (const { value } of readItems(file)) {
    const turns = turnsOf(value);
    if (!turns) continue;
    const first = turns.findIndex((t) => USER.has(t.speaker));
    const reply = first >= 0 ? turns.slice(first + 1).find((t) => ASSISTANT.has(t.speaker)) : undefined;
    if (first < 0 || !reply || turns[first]!.text.trim() === '') continue;
    const inputTokens = countInput(turns[first]!.text);
    const outputTokens = countOutput(reply.text);
    if (outputTokens < (dataset.min_output_tokens ?? 1) || outputTokens > (dataset.max_output_tokens ?? Infinity)) continue;
    if (inputTokens < (dataset.min_input_tokens ?? 1) || inputTokens > (dataset.max_input_tokens ?? Infinity)) continue;
    entries.push({ text: turns[first]!.text, inputTokens, outputTokens, timestampMs: null });
  }
  return entries;
}

function positiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

function trace(file: string): DatasetEntry[] {
  const entries: DatasetEntry[] = [];
  let previous = -Infinity;
  for (const { line, value } of readItems(file)) {
    // servebench's field names, or Mooncake's (timestamp, input_length, output_length).
    const row = value as Record<string, unknown> | null;
    const timestamp = row?.['timestamp_ms'] ?? row?.['timestamp'];
    const input = positiveInt(row?.['input_tokens'] ?? row?.['input_length']);
    const output = positiveInt(row?.['output_tokens'] ?? row?.['output_length']);
    if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || input === null || output === null) {
      throw usageError(`dataset ${file}:${line}: a trace line needs timestamp_ms (number), input_tokens and output_tokens (positive integers)`);
    }
    if (timestamp < previous) throw usageError(`dataset ${file}:${line}: timestamps must not decrease (${timestamp} after ${previous})`);
    previous = timestamp;
    entries.push({ text: null, inputTokens: input, outputTokens: output, timestampMs: timestamp });
  }
  return entries;
}

export function loadDataset(dataset: Dataset, api: Api, tokenizer: ModelTokenizer | null): DatasetEntry[] {
  const file = datasetPath(dataset.path);
  const key = JSON.stringify([file, dataset, api, tokenizer?.sha256 ?? null]);
  const cached = cache.get(key);
  if (cached) return cached;
  if (!existsSync(file)) throw usageError(`dataset.path: ${file} does not exist; download the file there or give --dataset PATH`);
  const entries = dataset.format === 'trace' ? trace(file) : sharegpt(dataset, file, api, tokenizer);
  if (entries.length === 0) throw usageError(`dataset ${file}: no usable entries (check the format and the length filters)`);
  cache.set(key, entries);
  return entries;
}

/** Arrival offsets of a trace: its own gaps, scaled, from 0. */
export function traceOffsetsMs(entries: readonly DatasetEntry[], timeScale: number, count: number | null): Float64Array {
  const n = Math.min(entries.length, count ?? entries.length);
  const start = entries[0]?.timestampMs ?? 0;
  return Float64Array.from({ length: n }, (_, i) => ((entries[i]!.timestampMs ?? start) - start) * timeScale);
}
