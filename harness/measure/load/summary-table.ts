/** The human summary printed at the end of `load`: one row per point. */
import type { DistributionJson, Point } from '../../contract/result.ts';
import { describeLoad } from './describe-load.ts';

/** Failure messages shown per point (the result keeps up to 20). */
const MESSAGES_SHOWN = 3;

function fixed(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? '–' : value.toFixed(digits);
}

function stat(distribution: DistributionJson | null, key: 'p50' | 'p99'): string {
  return fixed(distribution?.[key] ?? null);
}

export function formatSummaryTable(points: readonly Point[]): string {
  const header = ['load', 'ok', 'fail', 'req/s', 'out tok/s', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'TPOT p99', 'ITL p99', 'E2EL p50', 'queue p99', 'goodput', 'client'];
  const rows = points.map((point) => {
    const m = point.metrics;
    return [
      describeLoad(point.load),
      String(m.completed),
      String(m.failed),
      fixed(m.request_throughput, 2),
      fixed(m.output_throughput, 0),
      stat(m.ttft_ms, 'p50'),
      stat(m.ttft_ms, 'p99'),
      stat(m.tpot_ms, 'p50'),
      stat(m.tpot_ms, 'p99'),
      stat(m.itl_ms, 'p99'),
      stat(m.e2el_ms, 'p50'),
      stat(m.queue_ms, 'p99'),
      fixed(m.goodput, 2),
      point.client.saturated ? 'SATURATED' : 'ok',
    ];
  });
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const notes = ['Latencies in ms (client-side); throughput over the measured duration.'];
  if (points.some((point) => point.client.saturated)) {
    notes.push('SATURATED: the client itself may have limited this point (CPU ≥ 90% or event-loop delay p99 > 5 ms).');
  }
  const failures = points.flatMap((point) =>
    Object.entries(point.failures)
      .filter(([, n]) => n > 0)
      .map(([cls, n]) => `${describeLoad(point.load)}: ${n} ${cls}`),
  );
  if (failures.length > 0) notes.push(`Failures: ${failures.join('; ')}`);
  // What the failures said, the few most frequent of each point: a count alone does not say why.
  for (const point of points) {
    for (const { class: cls, message, count } of (point.failure_messages ?? []).slice(0, MESSAGES_SHOWN)) notes.push(`  ${describeLoad(point.load)}: ${count} × ${cls}: ${message}`);
  }
  return [line(header), line(widths.map((w) => '─'.repeat(w))), ...rows.map(line), '', ...notes, ''].join('\n');
}
