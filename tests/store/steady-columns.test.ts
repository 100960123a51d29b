/**
 * Compile's steady-window and overload columns: read from each point's own fields, null for the
 * files written before those fields existed (the committed CPU lane of 2026-12-02, real and
 * immutable). The point that has them is SYNTHETIC (tests/store/claim-fixtures.ts, measured nothing).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compileBesideCommittedResult } from './compile-beside-committed.ts';
import { synthetic } from './claim-fixtures.ts';
import { query } from './duckdb-query.ts';

/** The synthetic run: c=1 with a steady window, c=8 too short for one, a rate of 8/s overloaded. */
function withNewFields() {
  const result = synthetic({ concurrencies: [1, 8, 32] });
  const [first, second, third] = result.points;
  const m = first!.metrics;
  const d = 0.8 * m.duration_s;
  first!.steady = { start_s: 0.1 * m.duration_s, end_s: 0.9 * m.duration_s, duration_s: d, completed: 50, input_tokens: 50 * 512, output_tokens: 6000, request_throughput: 50 / d, output_throughput: 6000 / d, total_throughput: (50 * 512 + 6000) / d };
  second!.steady = null;
  second!.steady_reason = '8 requests were never in flight together (at most 7 of 7 sent): too short for a steady window';
  third!.load = { mode: 'open', rate: 8, arrival: 'poisson', burstiness: 1, max_concurrency: null };
  Object.assign(third!, { achieved_rate: { send_ratio: 1, completion_ratio: 0.5 }, overloaded: true, overload_reason: 'requests completed at 50.0% of the scheduled 8 requests/s (about 4 requests/s): the backlog grew' });
  return result;
}

describe('compile reads the steady window and the overload verdict of each point', () => {
  const fresh = withNewFields();
  let out = '';
  beforeAll(async () => {
    out = await compileBesideCommittedResult(fresh, 'sb-steady-columns-');
  }, 120_000);

  it('as the file says where it says it, null where it does not', async () => {
    const rows = await query(
      `SELECT run_id, point, steady_start_s, steady_end_s, steady_request_throughput, steady_output_throughput, steady_reason, overloaded, overload_reason FROM read_parquet('${out}/data/parquet/latest/points/*.parquet') ORDER BY run_id, point`,
    );
    const ofFresh = rows.filter((r) => r['run_id'] === fresh.run_id);
    const [first, second, third] = fresh.points;
    expect(ofFresh).toEqual([
      { run_id: fresh.run_id, point: 0, steady_start_s: first!.steady!.start_s, steady_end_s: first!.steady!.end_s, steady_request_throughput: first!.steady!.request_throughput, steady_output_throughput: first!.steady!.output_throughput, steady_reason: null, overloaded: null, overload_reason: null },
      { run_id: fresh.run_id, point: 1, steady_start_s: null, steady_end_s: null, steady_request_throughput: null, steady_output_throughput: null, steady_reason: second!.steady_reason, overloaded: null, overload_reason: null },
      { run_id: fresh.run_id, point: 2, steady_start_s: null, steady_end_s: null, steady_request_throughput: null, steady_output_throughput: null, steady_reason: null, overloaded: true, overload_reason: third!.overload_reason },
    ]);
    const ofOld = rows.filter((r) => r['run_id'] !== fresh.run_id);
    expect(ofOld.length).toBeGreaterThan(0);
    for (const row of ofOld) {
      for (const column of ['steady_start_s', 'steady_end_s', 'steady_request_throughput', 'steady_output_throughput', 'steady_reason', 'overloaded', 'overload_reason']) expect(row[column], column).toBeNull();
    }
  });
});
