/**
 * The engine's own Prometheus metrics, scraped before and after each point and sampled while it
 * runs: the ones that explain a result (requests running and waiting, KV-cache use, prefix-cache
 * hits, preemptions), summed over their labels. Names differ by engine: every metric of the name
 * map (harness/contract/engine-gauges.ts) is kept, and any other whose name says what it counts;
 * the common quantities are recorded beside them under one name (common-gauges.ts).
 */
import { MAPPED_METRIC_NAMES, type EngineGauges } from '../../contract/engine-gauges.ts';
import { requestBounded, type ReadLimits } from '../../lib/io/bounded-body.ts';
import { summarizeEngineGauges } from './common-gauges.ts';

const INTERESTING = /(running|waiting|swapped|cache_usage|cache_hit|cache_quer|prefix|preempt|kv_cache|num_requests|prompt_tokens_total|generation_tokens_total)/i;
/** Unmapped metrics kept at most: a bound on what an exporter with many label-free families adds to a result. */
const MAX_UNMAPPED_METRICS = 64;

export function parsePrometheus(text: string): Record<string, number> {
  const values: Record<string, number> = {};
  let unmapped = 0;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    // MLC separates name and value by a tab (engine_base.py prometheus_text); \s takes both.
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const [, name, , raw] = match;
    const value = Number(raw);
    if (!Number.isFinite(value) || name!.endsWith('_bucket')) continue;
    const mapped = MAPPED_METRIC_NAMES.has(name!);
    // prometheus_client's *_created samples are Unix timestamps of a counter's creation, not counts.
    if (!mapped && (!INTERESTING.test(name!) || name!.endsWith('_created'))) continue;
    if (!mapped && values[name!] === undefined) {
      if (unmapped >= MAX_UNMAPPED_METRICS) continue;
      unmapped++;
    }
    values[name!] = (values[name!] ?? 0) + value;
  }
  return values;
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

/**
 * Twice a second: a point of a few seconds still gets several samples of its queue and batch,
 * and one scrape (a vLLM /metrics of ~100 KB) costs the server about a millisecond of its API
 * process, far below what the point measures.
 */
export const GAUGE_SAMPLE_INTERVAL_MS = 500;

export interface PointEngineMetrics {
  before: Record<string, number>;
  after: Record<string, number>;
  gauges?: EngineGauges;
}

/**
 * One point's engine metrics: `start` scrapes before it and begins sampling, `stop` scrapes after
 * it and summarizes. A scrape still under way when the next is due is not doubled (a busy server
 * answers slowly; piling scrapes on it would load it more).
 */
export class EngineMetricsWatch {
  private before: Record<string, number> | null = null;
  private during: Record<string, number>[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inflight: Promise<void> | null = null;

  private readonly url: string;
  private readonly engine: string;
  private readonly intervalMs: number;

  constructor(url: string, engine: string, intervalMs = GAUGE_SAMPLE_INTERVAL_MS) {
    this.url = url;
    this.engine = engine;
    this.intervalMs = intervalMs;
  }

  async start(): Promise<void> {
    this.halt();
    this.during = [];
    this.before = await scrapeEngineMetrics(this.url);
    this.timer = setInterval(() => {
      if (this.inflight) return;
      this.inflight = scrapeEngineMetrics(this.url).then((sample) => {
        if (sample) this.during.push(sample);
        this.inflight = null;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** The point's metrics, or null when the server gave none before or after it. */
  async stop(): Promise<PointEngineMetrics | null> {
    this.halt();
    await this.inflight;
    const after = await scrapeEngineMetrics(this.url);
    const before = this.before;
    if (!before || !after) return null;
    const gauges = summarizeEngineGauges(this.engine, before, after, this.during);
    return gauges ? { before, after, gauges } : { before, after };
  }

  /** Stops sampling without a last scrape (the run ended before the point did). */
  dispose(): void {
    this.halt();
  }

  private halt(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
