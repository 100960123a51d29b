/**
 * Result validation: a good file passes; every kind of bad and hostile file ends as problems
 * naming the JSON path, never as an exception. The files are SYNTHETIC (bench/lib/synthetic-results.ts),
 * bar one committed real result checked as the repository's results/ takes it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkResultText } from '../../harness/store/check-result.ts';
import { listResultFiles, MAX_RESULT_BYTES } from '../../harness/store/result-files.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { syntheticResult } from '../../bench/lib/synthetic-results.ts';
import { RESULTS_DIR } from './claim-fixtures.ts';
import { quotesFileOf } from './limit-results.ts';

function good(): RunResult {
  return syntheticResult({ engine: 'vllm', version: '0.11.0', model: 'synthetic/llama-8b', gpu: 'Synthetic H100', gpuCount: 1, workload: 'chat', date: new Date('2026-03-01T12:00:00Z'), concurrencies: [1, 8], tpotMs: 10, ttftMs: 50, noise: 0, seed: 7 });
}

/** Text and the path servebench would give it. */
function placed(result: unknown): { text: string; path: string } {
  const text = `${JSON.stringify(result, null, 2)}\n`;
  return { text, path: resultRelativePath(result as RunResult, text) };
}

function problemsOf(result: unknown): Array<{ path: string; message: string }> {
  const { text, path } = placed(result);
  return checkResultText('f.json', text, path).problems;
}

describe('checkResultText', () => {
  it('accepts a well-formed result at its own path, and returns the parsed result', () => {
    const { text, path } = placed(good());
    const checked = checkResultText('f.json', text, path);
    expect(checked.problems).toEqual([]);
    expect(checked.result?.run_id).toBe(good().run_id);
  });

  it('rejects a file whose path does not match its content (an edited file)', () => {
    const { text, path } = placed(good());
    const edited = text.replace('"0.11.0"', '"0.11.1"');
    const problems = checkResultText('f.json', edited, path).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/path does not match the content: expected .*vllm.*\.json/);
  });

  it('rejects path tricks in names', () => {
    const { text } = placed(good());
    for (const path of ['../etc/passwd.json', '2026-03-01/VLLM/x.json', '2026-03-01/vllm/x.json.exe', '/abs/x.json', '2026-03-01/vllm/<script>.json']) {
      expect(checkResultText('f.json', text, path).problems[0]!.message, path).toMatch(/is not a result path/);
    }
  });

  it('names the JSON path of schema problems (wrong types, unknown fields)', () => {
    const r = good() as unknown as { points: Array<{ metrics: Record<string, unknown> }>; extra?: unknown };
    r.points[0]!.metrics.output_throughput = 'fast';
    expect(problemsOf(r).map((p) => p.path)).toContain('points[0].metrics.output_throughput');
    const withExtra = { ...good(), injected: 1 };
    expect(problemsOf(withExtra)[0]!.message).toMatch(/injected/);
  });

  it('checks that numbers agree with each other', () => {
    const order = good();
    order.points[1]!.metrics.ttft_ms!.p99 = order.points[1]!.metrics.ttft_ms!.p50 / 2;
    expect(problemsOf(order).map((p) => p.path)).toContain('points[1].metrics.ttft_ms.p99');

    const counts = good();
    counts.points[0]!.metrics.completed -= 1;
    counts.points[0]!.metrics.output_tokens -= 128;
    counts.points[0]!.metrics.input_tokens -= 512;
    const countProblems = problemsOf(counts).map((p) => p.path);
    expect(countProblems).toContain('points[0].requests_sent');

    const rate = good();
    rate.points[0]!.metrics.output_throughput! *= 1.05;
    expect(problemsOf(rate).map((p) => p.path)).toEqual(['points[0].metrics.output_throughput']);
    // Within the 1% tolerance: no problem.
    const close = good();
    close.points[0]!.metrics.output_throughput! *= 1.005;
    expect(problemsOf(close)).toEqual([]);
  });

  it('requires provenance: a run block, the engine version, the harness commit', () => {
    const load = good();
    delete (load as { run?: unknown }).run;
    load.kind = 'load';
    const { text } = placed(good());
    expect(checkResultText('f.json', `${JSON.stringify(load)}`, null).problems[0]!.message).toMatch(/kind "run"/);
    void text;
    const noVersion = good();
    noVersion.run!.engine.version = null;
    expect(problemsOf(noVersion).map((p) => p.path)).toContain('run.engine.version');
    const noCommit = good();
    noCommit.harness.git_commit = null;
    expect(problemsOf(noCommit).map((p) => p.path)).toContain('harness.git_commit');
  });

  it('rejects markup and control characters in names shown on the leaderboard', () => {
    const html = good();
    html.run!.engine.name = '<img src=x onerror=alert(1)>';
    expect(checkResultText('f.json', JSON.stringify(html), null).problems.map((p) => p.path)).toContain('run.engine.name');
    const control = good();
    control.run!.model.id = 'model\u0007\u001b[31m';
    expect(checkResultText('f.json', JSON.stringify(control), null).problems.map((p) => p.path)).toContain('run.model.id');
  });

  it('survives hostile files: huge, deeply nested, not JSON, not an object, unknown version', () => {
    const cases: Array<[string, RegExp]> = [
      ['x'.repeat(MAX_RESULT_BYTES + 1), /over the .* limit/],
      [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, /not a JSON object/],
      [`{"schema_version":1,"a":${'{"b":'.repeat(50_000)}1${'}'.repeat(50_000)}}`, /./],
      [JSON.stringify(good()).replace('"extra_body":{}', `"extra_body":${'{"b":'.repeat(50_000)}1${'}'.repeat(50_000)}`), /nested deeper/],
      ['{"schema_version": 1,', /not JSON/],
      ['null', /not a JSON object/],
      ['[1,2,3]', /not a JSON object/],
      ['{}', /schema_version missing/],
      ['{"schema_version": 2}', /not one this validator knows/],
      ['{"schema_version": "1"}', /not one this validator knows/],
      ['{"schema_version": 1, "__proto__": {"polluted": true}}', /./],
    ];
    for (const [text, pattern] of cases) {
      const checked = checkResultText('f.json', text, null);
      expect(checked.result, text.slice(0, 30)).toBeNull();
      expect(checked.problems[0]!.message, text.slice(0, 30)).toMatch(pattern);
    }
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('checks a file of exactly the size limit in full, its path by its sha256 included', () => {
    const text = quotesFileOf(2, MAX_RESULT_BYTES);
    expect(Buffer.byteLength(text)).toBe(MAX_RESULT_BYTES);
    const checked = checkResultText('f.json', text, resultRelativePath(JSON.parse(text) as RunResult, text));
    expect(checked.problems).toEqual([]);
    expect(checked.sha256).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it('checks the engine name as a name too: its length and its characters, at run.engine.name', () => {
    const long = good();
    long.run!.engine.name = 'v'.repeat(201);
    expect(problemsOf(long).filter((p) => p.message.startsWith('[name-length]'))).toEqual([expect.objectContaining({ path: 'run.engine.name', message: '[name-length] is 201 characters, over the 200 a name may have' })]);
    const odd = good();
    odd.run!.engine.name = 'vllm;';
    expect(problemsOf(odd).filter((p) => p.message.startsWith('[name-characters]')).map((p) => p.path)).toEqual(['run.engine.name']);
  });

  it("accepts a real run of the repository's results/ as the published store takes it (only a SYNTHETIC one is refused there)", () => {
    const [file] = listResultFiles(RESULTS_DIR).files;
    const checked = checkResultText(file!.relativePath, readFileSync(file!.absolutePath, 'utf8'), file!.relativePath, { publishedStore: true });
    expect(checked.problems).toEqual([]);
  });
});
