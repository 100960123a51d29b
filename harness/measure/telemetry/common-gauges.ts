/**
 * The common quantities of one point (harness/contract/engine-gauges.ts), from the engine's raw
 * metrics: the scrapes before and after the point give the counters' increase over it, the scrapes
 * during it give the gauges. Gauges read before or after a point see an idle engine (every request
 * done), so only the scrapes taken while it ran say how full the batch, the queue and the KV cache were.
 */
import { ENGINE_GAUGES, type EngineGauges } from '../../contract/engine-gauges.ts';

type Metrics = Readonly<Record<string, number>>;

/** The value of the first of `names` that `metrics` holds. */
function read(metrics: Metrics, names: readonly string[] | undefined): number | null {
  for (const name of names ?? []) {
    const value = metrics[name];
    if (value !== undefined) return value;
  }
  return null;
}

/** after − before of a counter; null when either lacks it, or it went down (the server restarted). */
function increase(before: Metrics, after: Metrics, names: readonly string[] | undefined): number | null {
  const a = read(before, names);
  const b = read(after, names);
  return a === null || b === null || b < a ? null : b - a;
}

function summarize(samples: readonly Metrics[], names: readonly string[] | undefined): { mean: number; max: number } | null {
  const values = samples.map((s) => read(s, names)).filter((v): v is number => v !== null && v >= 0);
  if (values.length === 0) return null;
  return { mean: values.reduce((sum, v) => sum + v, 0) / values.length, max: Math.max(...values) };
}

/** The common quantities for `engine`, or null when the map does not know it. */
export function summarizeEngineGauges(engine: string, before: Metrics, after: Metrics, during: readonly Metrics[]): EngineGauges | null {
  const map = ENGINE_GAUGES[engine];
  if (map === undefined) return null;
  const prefix = map.prefix;
  let hitRate: number | null = null;
  if (prefix) {
    const hits = increase(before, after, prefix.hits);
    const misses = increase(before, after, prefix.misses);
    const queries = increase(before, after, prefix.queries);
    const h = hits ?? (queries !== null && misses !== null ? queries - misses : null);
    const q = queries ?? (hits !== null && misses !== null ? hits + misses : null);
    if (h !== null && q !== null && q > 0) hitRate = Math.min(1, Math.max(0, h / q));
  }
  return {
    samples: during.length,
    running: summarize(during, map.running),
    waiting: summarize(during, map.waiting),
    kv_usage: summarize(during, map.kvUsage),
    prompt_tokens: increase(before, after, map.promptTokens),
    generation_tokens: increase(before, after, map.generationTokens),
    preemptions: increase(before, after, map.preemptions),
    prefix_hit_rate: hitRate,
    prefix_unit: prefix?.unit ?? null,
  };
}
