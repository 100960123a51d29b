/**
 * A load point's label, as every compiled row, report and page names it ("c=4", "rate=2 max=64",
 * "trace x0.5"), and back: one definition for the store that writes it, the comparison paths that
 * carry it and `confirm`, which replays a regressed point from it.
 */
import type { Load } from './result.ts';

export function loadLabel(load: Load): string {
  if (load.mode === 'closed') return `c=${load.concurrency}`;
  if (load.mode === 'open') return `rate=${load.rate}${load.max_concurrency ? ` max=${load.max_concurrency}` : ''}`;
  return `trace x${load.time_scale}`;
}

/** The closed concurrency or the open rate a label names (an open load's cap is its workload's); null for a trace or another text. */
export function parseLoadLabel(label: string): { readonly concurrency: string } | { readonly rate: string } | null {
  const closed = /^c=(\d+)$/.exec(label);
  if (closed) return { concurrency: closed[1]! };
  const open = /^rate=(inf|\d+(?:\.\d+)?)(?: max=\d+)?$/.exec(label);
  if (open) return { rate: open[1]! };
  return null;
}
