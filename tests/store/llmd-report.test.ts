/**
 * A servebench result as llm-d Benchmark Reports v0.2 (harness/store/llmd-report.ts), on SYNTHETIC
 * results (tests/store/claim-fixtures.ts synthetic(): bench/lib/synthetic-results.ts, nothing
 * measured): every mapped number is checked against the result's own numbers, milliseconds
 * converted to the seconds the reports carry, and every report against the v0.2 schema as
 * reconstructed from llm-d-benchmark's pydantic models (harness/store/llmd-report-schema.ts),
 * which is shown to refuse what v0.2 refuses.
 */
import { describe, expect, it } from 'vitest';
import { methodologyOf } from '../../harness/contract/methodology.ts';
import type { DistributionJson, RunResult } from '../../harness/contract/result.ts';
import { llmdReportLines, llmdReports, sequenceLength } from '../../harness/store/llmd-report.ts';
import { LlmdReportSchema, type LlmdReport } from '../../harness/store/llmd-report-schema.ts';
import { synthetic } from './claim-fixtures.ts';

const provenance = { file: '2026-01-10/vllm/synthetic/run.json', sha256: 'ab'.repeat(32) };

/** Equal to 1e-12 relative: a division by 1000 is the only arithmetic between the two. */
function expectNear(actual: number | undefined, expected: number, where: string): void {
  expect(actual, where).toBeDefined();
  expect(Math.abs(actual! - expected), `${where}: ${actual} vs ${expected}`).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(expected)));
}

function expectSeconds(stats: Record<string, unknown> | undefined, ms: DistributionJson, units: string, where: string): void {
  expect(stats, where).toBeDefined();
  expect(stats!.units, where).toBe(units);
  const pairs: Array<[string, keyof DistributionJson]> = [['mean', 'mean'], ['stddev', 'std'], ['min', 'min'], ['p50', 'p50'], ['p90', 'p90'], ['p95', 'p95'], ['p99', 'p99'], ['p99p9', 'p999'], ['max', 'max']];
  for (const [ours, theirs] of pairs) expectNear(stats![ours] as number, (ms[theirs] as number) / 1000, `${where}.${ours}`);
  // Only the statistics the result holds: no invented p10, p25, mode.
  expect(Object.keys(stats!).sort(), where).toEqual(['units', ...pairs.map(([k]) => k)].sort());
}

describe('llm-d Benchmark Report v0.2 from a servebench result', () => {
  const result = synthetic({ source: 'official' });
  const validity = [
    { status: 'valid' as const, reason: null },
    { status: 'overloaded' as const, reason: 'fell behind its schedule' },
  ];
  const reports = llmdReports(result, { ...provenance, validity });

  it('writes one report per load point, each valid v0.2', () => {
    expect(result.points.length).toBe(2);
    expect(reports).toHaveLength(result.points.length);
    for (const report of reports) expect(LlmdReportSchema.safeParse(report).success).toBe(true);
    expect(reports.map((r) => r.version)).toEqual(['0.2', '0.2']);
    expect(new Set(reports.map((r) => r.run.uid)).size).toBe(2);
    expect(reports.map((r) => r.run.eid)).toEqual([result.run_id, result.run_id]);
  });

  it('maps the latency distributions in seconds and every throughput, from the point’s own numbers', () => {
    result.points.forEach((point, i) => {
      const m = point.metrics;
      const aggregate = reports[i]!.results.request_performance!.aggregate!;
      expectSeconds(aggregate.latency!.time_to_first_token, m.ttft_ms!, 's', `point ${i} ttft`);
      expectSeconds(aggregate.latency!.time_per_output_token, m.tpot_ms!, 's/token', `point ${i} tpot`);
      expectSeconds(aggregate.latency!.inter_token_latency, m.itl_ms!, 's/token', `point ${i} itl`);
      expectSeconds(aggregate.latency!.request_latency, m.e2el_ms!, 's', `point ${i} e2el`);
      // servebench has no per-request e2e/output-tokens sample: no NTPOT.
      expect(aggregate.latency!.normalized_time_per_output_token).toBeUndefined();
      expect(aggregate.throughput).toEqual({
        input_token_rate: { units: 'tokens/s', mean: m.input_tokens / m.duration_s },
        output_token_rate: { units: 'tokens/s', mean: m.output_throughput },
        total_token_rate: { units: 'tokens/s', mean: m.total_throughput },
        request_rate: { units: 'queries/s', mean: m.request_throughput },
      });
      // input + output rates add up to the result's total rate.
      expectNear(aggregate.throughput!.input_token_rate!.mean + aggregate.throughput!.output_token_rate!.mean, m.total_throughput!, 'rates');
      expect(aggregate.requests).toEqual({
        total: point.requests_sent,
        failures: m.failed,
        input_length: { units: 'count', mean: m.input_tokens / m.completed },
        output_length: { units: 'count', mean: m.output_tokens / m.completed },
      });
      const gpu = point.telemetry!.gpu!;
      expect(reports[i]!.results.observability).toEqual({ components: [{ component_label: 'vllm', aggregate: { gpu_utilization: { units: 'percent', mean: gpu.mean_utilization_percent }, power_consumption: { units: 'Watts', mean: gpu.mean_power_w } } }] });
    });
  });

  it('describes the load of each point, the workload and the engine on its GPUs', () => {
    const spec = result.workload.spec;
    expect(spec.input.dist === 'fixed' && spec.output.dist === 'fixed').toBe(true);
    result.points.forEach((point, i) => {
      const load = reports[i]!.scenario!.load!;
      expect(point.load.mode).toBe('closed');
      expect(load.standardized).toEqual({
        tool: 'servebench',
        tool_version: result.harness.version,
        source: 'sampled',
        stage: i,
        input_seq_len: { distribution: 'fixed', value: spec.input.dist === 'fixed' ? spec.input.tokens : NaN },
        output_seq_len: { distribution: 'fixed', value: spec.output.dist === 'fixed' ? spec.output.tokens : NaN },
        concurrency: point.load.mode === 'closed' ? point.load.concurrency : NaN,
      });
      expect(load.metadata).toEqual({ schema_version: '0.0.1', cfg_id: result.workload.spec_sha256, description: `${result.workload.name}: ${spec.description}` });
      expect(reports[i]!.run.time).toEqual({ start: point.started_at, duration: `PT${point.metrics.duration_s}S` });
      expectNear(Number(/^PT(.+)S$/.exec(reports[i]!.run.time!.duration!)![1]), point.metrics.duration_s, 'duration');
    });
    expect(reports.map((r) => r.scenario!.load!.standardized.concurrency)).toEqual([1, 8]);
    const engine = reports[0]!.scenario!.stack![0]!;
    expect(engine.standardized).toEqual({
      kind: 'inference_engine',
      tool: result.run!.engine.name,
      tool_version: result.run!.engine.version,
      role: 'replica',
      replicas: 1,
      model: { name: result.run!.model.id },
      accelerator: { model: result.run!.hardware!.gpus[0]!.name, count: result.run!.hardware!.gpus.length, parallelism: {} },
    });
    expect(engine.metadata.cfg_id).toMatch(/^[0-9a-f]{64}$/);
    expect((engine.native.config as { host: unknown }).host).toEqual(result.run!.host);
  });

  it('carries servebench provenance in the run: result file, sha256, methodology, validity, source', () => {
    const methodology = methodologyOf(result);
    expect(reports[0]!.run.keywords).toEqual(['servebench', 'source=official', 'run_status=completed', `methodology=${methodology}`, 'validity=valid', 'load=c=1', `result_file=${provenance.file}`, `result_sha256=${provenance.sha256}`]);
    expect(reports[1]!.run.keywords).toContain('validity=overloaded');
    expect(reports[1]!.run.description).toContain(`${provenance.file} (sha256 ${provenance.sha256})`);
    expect(reports[1]!.run.description).toContain('point overloaded (fell behind its schedule)');
    // Not judged: no validity claimed.
    expect(llmdReports(result, provenance)[0]!.run.keywords!.some((k) => k.startsWith('validity='))).toBe(false);
  });

  it('leaves out what the result does not hold, rather than invent it', () => {
    const copy: RunResult = structuredClone(result);
    copy.points[0]!.metrics.ttft_ms = null;
    copy.points[0]!.metrics.output_throughput = null;
    copy.points[0]!.telemetry = undefined;
    copy.workload.spec = { ...copy.workload.spec, sampling: { temperature: 0, ignore_eos: false } };
    const [report] = llmdReports(copy, provenance);
    const aggregate = report!.results.request_performance!.aggregate!;
    expect(Object.keys(aggregate.latency!)).not.toContain('time_to_first_token');
    expect(Object.keys(aggregate.throughput!)).not.toContain('output_token_rate');
    expect(report!.results.observability).toBeUndefined();
    // Without ignore_eos, max_tokens is a cap: the output length was not enforced.
    expect(report!.scenario!.load!.standardized.output_seq_len).toBeUndefined();
    // No null stands for a missing number in the mapped blocks (native.config copies the result as it is, nulls included).
    for (const block of [report!.results, report!.run, report!.scenario!.load!.standardized, report!.scenario!.stack![0]!.standardized]) expect(JSON.stringify(block)).not.toContain('null');
  });

  it('an open-loop point has its rate and concurrency cap; a CPU-only run counts no accelerator; a load without a run block has no stack', () => {
    const open: RunResult = structuredClone(result);
    open.points[0]!.load = { mode: 'open', rate: 4, arrival: 'poisson', burstiness: 1, max_concurrency: 16 };
    open.points[1]!.load = { mode: 'open', rate: 'inf', arrival: 'poisson', burstiness: 1, max_concurrency: null };
    const [capped, unlimited] = llmdReports(open, provenance).map((r) => r.scenario!.load!.standardized);
    expect([capped!.rate_qps, capped!.concurrency]).toEqual([4, 16]);
    // An infinite rate has no number in JSON (v0.2 would say .inf): left out.
    expect([unlimited!.rate_qps, unlimited!.concurrency]).toEqual([undefined, undefined]);
    const cpu: RunResult = structuredClone(result);
    cpu.run!.hardware = null;
    expect(llmdReports(cpu, provenance)[0]!.scenario!.stack![0]!.standardized.accelerator).toEqual({ model: 'none', count: 0, parallelism: {} });
    const tp: RunResult = structuredClone(result);
    tp.run!.parameters = { ...tp.run!.parameters, tensor_parallel: 2, pipeline_parallel: 1 };
    expect(llmdReports(tp, provenance)[0]!.scenario!.stack![0]!.standardized.accelerator.parallelism).toEqual({ tp: 2, pp: 1 });
    const endpoint: RunResult = structuredClone(result);
    endpoint.kind = 'load';
    delete endpoint.run;
    const [measured] = llmdReports(endpoint, provenance);
    expect(measured!.scenario!.stack).toBeUndefined();
    expect(measured!.results.observability).toBeUndefined();
    expect(LlmdReportSchema.safeParse(measured).success).toBe(true);
  });

  it('the download\'s lines are each report\'s own JSON, the component written once and spliced in, whatever the strings around it hold', () => {
    const asLines = (r: RunResult) => llmdReports(r, provenance).map((report) => `${JSON.stringify(report)}\n`).join('');
    const lines = llmdReportLines(result, { ...provenance, validity });
    expect(lines).toBe(reports.map((report) => `${JSON.stringify(report)}\n`).join(''));
    expect(lines.split('\n').slice(0, -1).map((line) => JSON.parse(line) as unknown)).toEqual(reports);
    // The mark, and its JSON text, inside the component (free-form engine settings) and after it (the scenario's description).
    const hostile: RunResult = structuredClone(result);
    hostile.run!.engine.config = { stack: ['\u0001'], text: '"stack":["\\u0001"]' };
    hostile.workload.spec = { ...hostile.workload.spec, description: '\u0001 "stack":["\\u0001"]' };
    expect(llmdReportLines(hostile, provenance)).toBe(asLines(hostile));
    expect(llmdReportLines(hostile, provenance)).toContain('"settings":{"stack":["\\u0001"]');
    const endpoint: RunResult = structuredClone(result);
    endpoint.kind = 'load';
    delete endpoint.run;
    expect(llmdReportLines(endpoint, provenance)).toBe(asLines(endpoint));
    expect(llmdReportLines({ ...result, status: 'failed', points: [] }, provenance)).toBe('');
  });

  it('a run that failed before measuring has no report', () => {
    expect(llmdReports({ ...result, status: 'failed', points: [] }, provenance)).toEqual([]);
  });

  it('maps each length distribution of the spec to a v0.2 sequence length', () => {
    expect(sequenceLength({ dist: 'uniform', min: 100, max: 300 }, null)).toEqual({ distribution: 'uniform', value: 200, min: 100, max: 300 });
    // vLLM ≥ 0.8.4 draws in [int(L(1−r)), int(L(1+r))]; SGLang in [max(int(L·r), 1), L].
    expect(sequenceLength({ dist: 'range_ratio', tokens: 1000, ratio: 0.25, convention: 'vllm' }, null)).toEqual({ distribution: 'uniform', value: 1000, min: 750, max: 1250 });
    expect(sequenceLength({ dist: 'range_ratio', tokens: 1000, ratio: 0.25, convention: 'sglang' }, null)).toEqual({ distribution: 'uniform', value: 625, min: 250, max: 1000 });
    expect(sequenceLength({ dist: 'normal', mean: 500, std: 50, min: 1, max: 900 }, null)).toEqual({ distribution: 'gaussian', value: 500, std_dev: 50, min: 1, max: 900 });
    expect(sequenceLength({ dist: 'lognormal', median: 400, sigma: 0.5, min: 10, max: 4000 }, null)).toEqual({ distribution: 'other', value: 400, min: 10, max: 4000 });
    expect(sequenceLength({ dist: 'empirical' }, 321.5)).toEqual({ distribution: 'other', value: 321.5 });
    expect(sequenceLength({ dist: 'empirical' }, null)).toBeNull();
  });
});

describe('the reconstructed v0.2 schema refuses what v0.2 refuses', () => {
  const report = llmdReports(synthetic(), provenance)[0]!;
  const refused = (edit: (r: LlmdReport & Record<string, unknown>) => void) => {
    const copy = structuredClone(report) as LlmdReport & Record<string, unknown>;
    edit(copy);
    return !LlmdReportSchema.safeParse(copy).success;
  };

  it('accepts the report as written, and refuses each violation', () => {
    expect(LlmdReportSchema.safeParse(report).success).toBe(true);
    // The root and every block forbid unknown keys (pydantic extra="forbid").
    expect(refused((r) => (r.metadata = { run_id: 'x' }))).toBe(true);
    expect(refused((r) => ((r.run as Record<string, unknown>).run_id = 'x'))).toBe(true);
    // Required: run.uid, results, a statistic's units and mean, the load's source and input length.
    expect(refused((r) => delete (r.run as Partial<LlmdReport['run']>).uid)).toBe(true);
    expect(refused((r) => delete (r as Partial<LlmdReport>).results)).toBe(true);
    expect(refused((r) => delete (r.results.request_performance!.aggregate!.latency!.time_to_first_token as Partial<{ mean: number }>).mean)).toBe(true);
    expect(refused((r) => delete (r.scenario!.load!.standardized as Partial<{ source: string }>).source)).toBe(true);
    // Each field's units: a time in s or ms, a per-token latency in s/token or ms/token, rates in tokens/s and queries/s.
    expect(refused((r) => (r.results.request_performance!.aggregate!.latency!.time_to_first_token!.units = 's/token' as 's'))).toBe(true);
    expect(refused((r) => (r.results.request_performance!.aggregate!.latency!.time_per_output_token!.units = 's' as 's/token'))).toBe(true);
    expect(refused((r) => (r.results.request_performance!.aggregate!.throughput!.request_rate!.units = 'tokens/s' as 'queries/s'))).toBe(true);
    expect(refused((r) => (r.results.request_performance!.aggregate!.throughput!.output_token_rate!.units = 'token/s' as 'tokens/s'))).toBe(true);
    // Bounds: a non-negative stddev, a concurrency of at least 1, one replica at least, a known role and distribution.
    expect(refused((r) => (r.results.request_performance!.aggregate!.latency!.request_latency!.stddev = -1))).toBe(true);
    expect(refused((r) => (r.scenario!.load!.standardized.concurrency = 0))).toBe(true);
    expect(refused((r) => (r.scenario!.stack![0]!.standardized.replicas = 0))).toBe(true);
    expect(refused((r) => (r.scenario!.stack![0]!.standardized.role = 'leader' as 'replica'))).toBe(true);
    expect(refused((r) => (r.scenario!.load!.standardized.input_seq_len.distribution = 'poisson' as 'fixed'))).toBe(true);
    expect(refused((r) => (r.version = '0.1' as '0.2'))).toBe(true);
  });
});
