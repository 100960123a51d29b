import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JSON_SCHEMA_PATH, renderJsonSchema } from '../../scripts/export-json-schema.ts';
import { RunResultSchema, SCHEMA_VERSION } from '../../harness/contract/result.ts';
import { loadAgainst } from '../load/run-sim.ts';
import { fastSim } from '../load/sim-fixture.ts';

describe('result schema', () => {
  it('the committed JSON Schema is the one the zod schema generates (run `npm run schema:export`)', () => {
    expect(readFileSync(JSON_SCHEMA_PATH, 'utf8')).toBe(renderJsonSchema());
  });

  it('a real run result is self-describing and round-trips through JSON', async () => {
    const sim = await fastSim();
    const { result } = await loadAgainst(sim.url, { 'input-len': '8', 'output-len': '4', 'num-prompts': '3', 'save-requests': true });
    const reparsed = RunResultSchema.parse(JSON.parse(JSON.stringify(result)));
    expect(reparsed.schema_version).toBe(SCHEMA_VERSION);
    expect(reparsed.points[0]!.requests).toHaveLength(3);
    expect(Object.keys(reparsed.points[0]!.metrics).sort()).toEqual(
      [
        'completed', 'failed', 'input_tokens', 'output_tokens', 'duration_s', 'request_throughput', 'output_throughput', 'total_throughput', 'goodput',
        'ttft_ms', 'tpot_ms', 'itl_ms', 'itl_event_ms', 'e2el_ms', 'queue_ms', 'interactivity_tok_s',
      ].sort(),
    );
    expect(Object.keys(reparsed.points[0]!.client)).toEqual(expect.arrayContaining(['event_loop_delay_p99_ms', 'cpu_percent', 'saturated']));

    const broken = structuredClone(reparsed) as unknown as { points: Array<{ metrics: Record<string, unknown> }>; schema_version: number; run_id: string };
    expect(RunResultSchema.safeParse({ ...broken, schema_version: 99 }).success).toBe(false);
    expect(RunResultSchema.safeParse({ ...broken, run_id: '../../etc/passwd' }).success).toBe(false);
    expect(RunResultSchema.safeParse({ ...broken, surprise: 1 }).success).toBe(false);
    broken.points[0]!.metrics['completed'] = -1;
    expect(RunResultSchema.safeParse(broken).success).toBe(false);
  });
});
