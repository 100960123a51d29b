/**
 * The engine's own Prometheus metrics, scraped before and after each point: the ones that explain
 * a result (requests running and waiting, KV-cache use, prefix-cache hits, preemptions), summed
 * over their labels. Names differ by engine; any metric whose name says what it counts is kept.
 */
import { request } from 'undici';

const INTERESTING = /(running|waiting|swapped|cache_usage|cache_hit|cache_quer|prefix|preempt|kv_cache|num_requests|prompt_tokens_total|generation_tokens_total)/i;
const MAX_METRICS = 64;

export function parsePrometheus(text: string): Record<string, number> {
  const values: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const [, name, , raw] = match;
    const value = Number(raw);
    if (!INTERESTING.test(name!) || !Number.isFinite(value) || name!.endsWith('_bucket')) continue;
    values[name!] = (values[name!] ?? 0) + value;
  }
  return Object.fromEntries(Object.entries(values).slice(0, MAX_METRICS));
}

export async function scrapeEngineMetrics(url: string): Promise<Record<string, number> | null> {
  try {
    const response = await request(url, { headersTimeout: 5000, bodyTimeout: 5000 });
    const text = await response.body.text();
    return response.statusCode === 200 ? parsePrometheus(text) : null;
  } catch {
    return null;
  }
}
