/**
 * Requests from files: ShareGPT conversations (a JSON array or JSONL; the first user turn is the
 * prompt, the reply that follows sets max_tokens, both measured with the model's tokenizer when
 * there is one) and traces of production traffic (JSONL of arrival time and lengths, replayed
 * with their real gaps). A bad file is a usage error naming the file, the line and the fix.
 */
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usageError } from '../../lib/errors.ts';
import type { Api } from '../../contract/result.ts';
import type { Dataset } from '../../contract/workload.ts';
import type { ModelTokenizer } from '../tokenizer/hf-tokenizer.ts';

export interface DatasetEntry {
  /** The prompt text (ShareGPT), or null (a trace has lengths only). */
  readonly text: string | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Arrival time in the trace, in ms (null for ShareGPT). */
  readonly timestampMs: number | null;
}

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
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
    return array.map((value, i) => ({ line: i + 1, value })); // "line" is the item's position here
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

/** Turns parsed items into entries one at a time, so a large file is never held whole. */
interface Collector {
  add(line: number, value: unknown): void;
  /** True once enough entries were collected. */
  readonly full: boolean;
  entries(): DatasetEntry[];
}

function sharegptCollector(dataset: Dataset, api: Api, tokenizer: ModelTokenizer | null, limit: number): Collector {
  const countInput = (text: string): number => (tokenizer ? tokenizer.countRequest(api, text).tokens : words(text));
  const countOutput = (text: string): number => (tokenizer ? tokenizer.count(text) : words(text));
  const entries: DatasetEntry[] = [];
  return {
    add(_line, value) {
      const turns = turnsOf(value);
      if (!turns) return;
      const first = turns.findIndex((t) => USER.has(t.speaker));
      const reply = first >= 0 ? turns.slice(first + 1).find((t) => ASSISTANT.has(t.speaker)) : undefined;
      if (first < 0 || !reply || turns[first]!.text.trim() === '') return;
      const outputTokens = countOutput(reply.text);
      if (outputTokens < (dataset.min_output_tokens ?? 1) || outputTokens > (dataset.max_output_tokens ?? Infinity)) return;
      const inputTokens = countInput(turns[first]!.text);
      if (inputTokens < (dataset.min_input_tokens ?? 1) || inputTokens > (dataset.max_input_tokens ?? Infinity)) return;
      entries.push({ text: turns[first]!.text, inputTokens, outputTokens, timestampMs: null });
    },
    get full() {
      return entries.length >= limit;
    },
    entries: () => entries,
  };
}

function positiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

function traceCollector(file: string, limit: number): Collector {
  const entries: DatasetEntry[] = [];
  let previous = -Infinity;
  return {
    add(line, value) {
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
    },
    get full() {
      return entries.length >= limit;
    },
    entries: () => entries,
  };
}

/**
 * The items of a JSON array or of JSONL, streamed: a JSON array is split into its top-level
 * elements by a scanner that tracks strings and nesting, so files larger than a JavaScript string
 * can hold (ShareGPT's is ~650 MB) are read in pieces.
 */
async function* streamItems(file: string): AsyncGenerator<{ line: number; value: unknown }> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  let mode: 'unknown' | 'array' | 'lines' = 'unknown';
  let pending = '';
  let lineNumber = 0;
  let depth = 0;
  let inString = false;
  let escape = false;
  let started = false;
  let inElement = false;
  const pieces: string[] = [];
  let item = 0;
  const parse = (text: string, where: number): unknown => {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw usageError(`dataset ${file}:${where}: not valid JSON (${(error as Error).message})`);
    }
  };
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = chunk;
    if (mode === 'unknown') {
      const first = text.trimStart()[0];
      if (first === undefined) continue;
      mode = first === '[' ? 'array' : 'lines';
    }
    if (mode === 'lines') {
      const lines = (pending + text).split('\n');
      pending = lines.pop()!;
      for (const raw of lines) {
        lineNumber += 1;
        if (raw.trim() !== '') yield { line: lineNumber, value: parse(raw, lineNumber) };
      }
      continue;
    }
    // Each character is scanned once; an element spanning chunks is kept in pieces until it closes.
    let elementStart = inElement ? 0 : -1;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (!started) {
        if (c === '[') started = true;
        continue;
      }
      if (inString) {
        if (escape) escape = false;
        else if (c === '\\') escape = true;
        else if (c === '"') inString = false;
        continue;
      }
      if (depth === 0 && (c === '{' || c === '[')) {
        elementStart = i;
        inElement = true;
      }
      if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth += 1;
      else if ((c === '}' || c === ']') && depth > 0) {
        depth -= 1;
        if (depth === 0 && inElement) {
          item += 1;
          pieces.push(text.slice(elementStart, i + 1));
          yield { line: item, value: parse(pieces.join(''), item) };
          pieces.length = 0;
          inElement = false;
          elementStart = -1;
        }
      }
    }
    if (inElement) pieces.push(text.slice(elementStart));
  }
  if (mode === 'lines' && pending.trim() !== '') yield { line: lineNumber + 1, value: parse(pending, lineNumber + 1) };
}

function collector(dataset: Dataset, file: string, api: Api, tokenizer: ModelTokenizer | null, limit: number): Collector {
  return dataset.format === 'trace' ? traceCollector(file, limit) : sharegptCollector(dataset, api, tokenizer, limit);
}

function cacheKey(file: string, dataset: Dataset, api: Api, tokenizer: ModelTokenizer | null): string {
  return JSON.stringify([file, dataset, api, tokenizer?.sha256 ?? null]);
}

function existing(dataset: Dataset): string {
  const file = datasetPath(dataset.path);
  if (!existsSync(file)) throw usageError(`dataset.path: ${file} does not exist; download the file there or give --dataset PATH`);
  return file;
}

function finish(file: string, entries: DatasetEntry[]): DatasetEntry[] {
  if (entries.length === 0) throw usageError(`dataset ${file}: no usable entries (check the format and the length filters)`);
  return entries;
}

/**
 * Reads (streaming) and caches a dataset before the run, up to `limit` usable entries in file
 * order (a trace is always read whole: its order is its time).
 */
export async function preloadDataset(dataset: Dataset, api: Api, tokenizer: ModelTokenizer | null, limit = Infinity): Promise<DatasetEntry[]> {
  const file = existing(dataset);
  const key = cacheKey(file, dataset, api, tokenizer);
  const cached = cache.get(key);
  if (cached) return cached;
  const sink = collector(dataset, file, api, tokenizer, dataset.format === 'trace' ? Infinity : limit);
  for await (const { line, value } of streamItems(file)) {
    sink.add(line, value);
    if (sink.full) break;
  }
  const entries = finish(file, sink.entries());
  cache.set(key, entries);
  return entries;
}

/** The dataset's entries: from the cache that preloadDataset filled, else read now (small files). */
export function loadDataset(dataset: Dataset, api: Api, tokenizer: ModelTokenizer | null): DatasetEntry[] {
  const file = existing(dataset);
  const key = cacheKey(file, dataset, api, tokenizer);
  const cached = cache.get(key);
  if (cached) return cached;
  const sink = collector(dataset, file, api, tokenizer, Infinity);
  for (const { line, value } of readItems(file)) sink.add(line, value);
  const entries = finish(file, sink.entries());
  cache.set(key, entries);
  return entries;
}

/** Arrival offsets of a trace: its own gaps, scaled, from 0. */
export function traceOffsetsMs(entries: readonly DatasetEntry[], timeScale: number, count: number | null): Float64Array {
  const n = Math.min(entries.length, count ?? entries.length);
  const start = entries[0]?.timestampMs ?? 0;
  return Float64Array.from({ length: n }, (_, i) => ((entries[i]!.timestampMs ?? start) - start) * timeScale);
}
