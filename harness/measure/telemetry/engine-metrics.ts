/**
 * The engine's own Prometheus metrics, scraped before and after each point: the ones that explain
 * a result (requests running and waiting, KV-cache use, prefix-cache hits, preemptions), summed
 * over their labels. Names differ by engine; any metric whose name says what it counts is kept.
 */
import { requestBounded, type ReadLimits } from '../../lib/io/bounded-body.ts';

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

/**
 * A real vLLM's /metrics is about 100 KB (histograms per model and LoRA adapter add more); 16 MiB
 * leaves room for many labels and stops a broken exporter. 10 s: it is scraped between points,
 * where every second waited is a second the run is longer.
 */
export const METRICS_LIMITS: ReadLimits = { maxBytes: 16 * 1024 * 1024, timeoutMs: 10_000 };

/** The interesting metrics, or null when the server has none to give (or gave too much, too slowly). */
export async function scrapeEngineMetrics(url: string): Promise<Record<string, number> | null> {
  try {
    const response = await requestBounded(url, {}, METRICS_LIMITS);
    return response.status === 200 ? parsePrometheus(response.text()) : null;
  } catch {
    return null;
  }
}
