/**
 * The hostile result files of the hardening review, one by one: each is either refused by
 * validate with the rule it broke, or compiles (and the compile agrees with validate). The base
 * files are a real run (`servebench run --launcher external` against the in-process sim, every
 * request answered 500: an honest failed run) and the SYNTHETIC fixture of bench/lib/synthetic-results.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResultText } from '../../harness/store/check-result.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { startSimServer, type SimServer } from '../../harness/engines/sim/server.ts';
import { syntheticResult } from '../../bench/lib/synthetic-results.ts';
import { runCli } from '../cli/run-cli.ts';
import { writeFixturePrices } from './fixture-results.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-hostile-'));
let sim: SimServer;
let failedRun: RunResult;

function synthetic(): RunResult {
  return syntheticResult({ engine: 'vllm', version: '0.11.0', model: 'synthetic/llama-8b', gpu: 'Synthetic H100', gpuCount: 1, workload: 'chat', date: new Date('2026-03-01T12:00:00Z'), concurrencies: [1, 8], tpotMs: 10, ttftMs: 50, noise: 0, seed: 7 });
}

/** Writes the result at its content path in a fresh results folder. */
function place(result: unknown, dir = mkdtempSync(join(root, 'results-'))): { dir: string; path: string; text: string } {
  const text = `${JSON.stringify(result, null, 2)}\n`;
  const path = resultRelativePath(result as RunResult, text);
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
  return { dir, path, text };
}

function problemsOf(result: unknown): string[] {
  const { text, path } = place(result);
  return checkResultText('f.json', text, path).problems.map((p) => `${p.path}: ${p.message}`);
}

async function compiles(result: unknown): Promise<number> {
  const { dir } = place(result);
  const report = await compile({ resultsDir: dir, outDir: mkdtempSync(join(root, 'out-')), prices: loadPrices(writeFixturePrices(root)) });
  expect(report.problems).toEqual([]);
  return report.ingest.valid;
}

beforeAll(async () => {
  sim = await startSimServer({ port: 0, decodeBaseMs: 1, decodePerSeqMs: 0, prefillTokensPerS: 1e7, faults: { http500: 1 } });
  const resultsDir = join(root, 'failed-run');
  const run = await runCli(['run', '--engine', 'sim', '--launcher', 'external', '--endpoint', sim.url, '--model', 'sim-model', '--workload', 'chat', '--num-prompts', '6', '--concurrency', '2', '--warmup', '0', '--tokenizer', 'none', '--save-requests', '--results-dir', resultsDir], 60_000);
  const written = run.stderr.match(/wrote (\S+\.json)/)?.[1];
  if (!written) throw new Error(`run wrote no result (exit ${run.code}): ${run.stderr}`);
  failedRun = JSON.parse(readFileSync(written, 'utf8')) as RunResult;
}, 90_000);

afterAll(async () => {
  await sim.close();
});

describe('an honest failed run', () => {
  it('validates and compiles (ln(0) is never taken)', async () => {
    expect(failedRun.points[0]!.metrics.failed).toBeGreaterThan(0);
    expect(failedRun.points[0]!.metrics.output_throughput).toBe(0);
    expect(problemsOf(failedRun)).toEqual([]);
    expect(await compiles(failedRun)).toBe(1);
  });

  it('compiles with carriage returns and NUL in its strings (a tqdm line in the log tail, host.os)', async () => {
    const hostile = structuredClone(failedRun);
    hostile.run!.failure = { phase: 'launch', message: 'Loading weights\r 50%|#####\r100%|##########\u0000', log_tail: ['progress\r\n', '"quoted", and, commas'] };
    hostile.status = 'failed';
    hostile.run!.host.os = 'Linux 6.1\r';
    expect(problemsOf(hostile)).toEqual([]);
    expect(await compiles(hostile)).toBe(1);
  });
});

describe('counts the compiled tables cannot hold are refused, naming the column', () => {
  it('a count above 2^31', () => {
    const r = synthetic();
    const point = r.points[0]!;
    point.requests_sent = point.metrics.completed = 2 ** 31 + 5;
    point.metrics.request_throughput = point.metrics.completed / point.metrics.duration_s;
    expect(problemsOf(r).join('\n')).toMatch(/requests_sent \(INTEGER\).*beyond a 32-bit integer/);
  });
});

describe('the plausibility gate refuses fabricated numbers with the rule they broke', () => {
  const cases: Array<[string, (r: RunResult) => void, RegExp]> = [
    ['duration 0 with a huge rate', (r) => ((r.points[0]!.metrics.duration_s = 0), (r.points[0]!.metrics.output_throughput = 1e12)), /\[duration>0\]/],
    ['a rate beyond any hardware', (r) => {
      const m = r.points[0]!.metrics;
      m.duration_s = m.output_tokens / 5e6;
      m.request_throughput = m.completed / m.duration_s;
      m.output_throughput = m.output_tokens / m.duration_s;
      m.total_throughput = (m.input_tokens + m.output_tokens) / m.duration_s;
    }, /\[physical-decode-rate\]/],
    ['TTFT above end-to-end latency', (r) => (r.points[0]!.metrics.ttft_ms!.p50 = r.points[0]!.metrics.e2el_ms!.p50 + 1), /\[e2el≥ttft\]/],
    ['interactivity that disagrees with TPOT', (r) => (r.points[0]!.metrics.interactivity_tok_s!.max *= 2), /\[interactivity=1000\/tpot\]/],
    ['an outcome that disagrees with the points', (r) => (r.outcome.failure_rate = 0.5), /\[outcome=points\]/],
    ['an interrupted flag on a completed run', (r) => (r.outcome.interrupted = true), /\[outcome=status\]/],
    ['negative latencies', (r) => {
      const d = r.points[0]!.metrics.queue_ms!;
      d.min = -5;
    }, /\[latency≥0\]/],
    ['year 0000', (r) => ((r.created_at = '0000-01-01T00:00:00.000Z'), (r.run_id = `00000101T000000Z-${r.run_id.slice(-8)}`)), /\[plausible-date\]/],
    ['year 9999', (r) => ((r.finished_at = '9999-01-01T00:00:00.000Z')), /\[plausible-date\]/],
    ['throughput that disagrees with the sums', (r) => (r.points[1]!.metrics.output_throughput! *= 1.05), /\[rate=sum\/duration\]/],
  ];
  for (const [name, mutate, rule] of cases) {
    it(name, () => {
      const r = synthetic();
      mutate(r);
      expect(problemsOf(r).join('\n')).toMatch(rule);
    });
  }

  it('per-request identities (saved requests): e2el = ttft + (n−1)·tpot', () => {
    const r = structuredClone(failedRun);
    // The failed run's requests have no latencies; give one the numbers of a completed request, off by 10 ms.
    Object.assign(r.points[0]!.requests![0]!, { ttft_ms: 20, tpot_ms: 2, output_tokens: 11, e2el_ms: 50 });
    expect(problemsOf(r).join('\n')).toMatch(/\[e2el=ttft\+\(n−1\)·tpot\]/);
  });

  it('homoglyph and markup names', () => {
    const r = synthetic();
    r.run!.engine.name = 'vllм';
    expect(problemsOf(r).join('\n')).toMatch(/run\.engine\.name: .*U\+043C/);
    const model = synthetic();
    model.run!.model.id = 'meta-llama/Llаma-3-8B';
    expect(problemsOf(model).join('\n')).toMatch(/run\.model\.id: .*U\+0430/);
  });

  it('bidi controls in the reproduce command', () => {
    const r = synthetic();
    r.harness.command = ['run', '--model', 'a\u202Egpj.exe'];
    expect(problemsOf(r).join('\n')).toMatch(/harness\.command\[2\]: .*U\+202E/);
  });

  it('an engine name with @ (the compare page splits engine@version at the first @)', () => {
    const r = synthetic();
    r.run!.engine.name = 'v@llm';
    expect(problemsOf(r).join('\n')).toMatch(/not an engine file name/);
  });

  it('the synthetic fixture itself passes every rule', () => {
    expect(problemsOf(synthetic())).toEqual([]);
  });
});

describe('the small ones', () => {
  it('compile --out refuses a folder that is not compile output, and /proc', async () => {
    const checkout = mkdtempSync(join(root, 'checkout-'));
    mkdirSync(join(checkout, 'site'));
    writeFileSync(join(checkout, 'site', 'index.astro'), 'sources');
    const { dir } = place(synthetic());
    const refused = await runCli(['compile', '--results', dir, '--out', checkout]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not compile output/);
    expect(readFileSync(join(checkout, 'site', 'index.astro'), 'utf8')).toBe('sources');
    const proc = await runCli(['compile', '--results', dir, '--out', '/proc/self/servebench-out'], 20_000);
    expect(proc.code).toBe(2);
    expect(proc.stderr).toMatch(/pseudo-filesystem/);
    // A new folder is claimed, and the second compile into it is allowed.
    const out = join(root, 'fresh-out');
    expect((await runCli(['compile', '--results', dir, '--out', out])).code).toBe(0);
    expect((await runCli(['compile', '--results', dir, '--out', out])).code).toBe(0);
  }, 60_000);

  it('validate --base and FILES find a duplicate run_id anywhere in an existing file, not only in its first 1,024 bytes', async () => {
    const r = synthetic();
    // Already in the folder: the run, with a long $schema first, so its run_id starts past byte 1,024.
    const { dir } = place({ $schema: `https://example.invalid/${'x'.repeat(2000)}`, ...r });
    const outside = join(root, 'copy.json');
    writeFileSync(outside, `${JSON.stringify(r, null, 2)}\n`);
    const checked = await runCli(['validate', '--results', dir, outside]);
    expect(checked.stderr).toMatch(/run_id .* is already in/);
    expect(checked.code).toBe(1);
  }, 30_000);

  it('a nested README.md in results/ is checked (only the root may hold one)', async () => {
    const { dir, path } = place(synthetic());
    writeFileSync(join(dir, 'README.md'), 'root readme');
    writeFileSync(join(dir, dirname(path), 'README.md'), 'not a result');
    const checked = await runCli(['validate', '--results', dir]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(new RegExp(`${dirname(path)}/README.md: \\[not-a-result\\] not a result file`));
    expect(checked.stderr).not.toMatch(/^README.md/m);
  }, 30_000);

  it('file names cannot inject GitHub Actions workflow commands or break lines', async () => {
    const { dir } = place(synthetic());
    const evil = join(dir, '::stop-commands::pwned.json');
    writeFileSync(evil, '{');
    writeFileSync(join(dir, 'x\n::error::forged ##[add-mask]y.json'), '{');
    const checked = await runCli(['validate', '--results', dir], 30_000, { GITHUB_ACTIONS: '' });
    const lines = checked.stderr.trim().split('\n');
    expect(lines.every((line) => !line.trimStart().startsWith('::') && !line.includes('##['))).toBe(true);
    expect(checked.stderr).toMatch(/\\u000a::error::forged/);
  }, 30_000);

  it('a result file is sized before it is read (a 1 GB sparse file is refused without reading it)', async () => {
    const { dir, path } = place(synthetic());
    const big = join(dir, dirname(path), 'big.json');
    const { openSync, ftruncateSync, closeSync } = await import('node:fs');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 1024 ** 3);
    closeSync(fd);
    const checked = await runCli(['validate', '--results', dir, '--json']);
    expect(checked.code).toBe(1);
    const report = JSON.parse(checked.stdout) as { problems: Array<{ file: string; message: string }> };
    expect(report.problems.find((p) => p.file.endsWith('big.json'))?.message).toMatch(/1073741824 bytes, over the 8388608 limit/);
  }, 30_000);
});

describe('credentials', () => {
  it('a result that still holds one is refused, naming where (never the secret)', () => {
    const r = synthetic();
    r.harness.command = ['load', '--endpoint', 'http://bob:hunter2@127.0.0.1:8000', '--header', 'Authorization: Bearer abc.def'];
    r.target.endpoint = 'http://127.0.0.1:8000/?api_key=s3cret';
    const problems = problemsOf(r).join('\n');
    expect(problems).toMatch(/harness\.command\[2\]: \[credential\] holds a credential/);
    expect(problems).toMatch(/harness\.command\[4\]: \[credential\] holds a credential/);
    expect(problems).toMatch(/target\.endpoint: \[credential\] holds a credential/);
    expect(problems).not.toMatch(/hunter2|s3cret|abc\.def/);
  });
});

describe('review findings', () => {
  it('compiles a results folder with no valid run (empty, or every file refused): zero rows, exit 0', async () => {
    const empty = mkdtempSync(join(root, 'empty-results-'));
    const out = join(root, 'empty-out');
    const compiled = await runCli(['compile', '--results', empty, '--out', out]);
    expect(compiled.code, compiled.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'site', 'meta.json'), 'utf8'))).toMatchObject({ runs: 0, points: 0 });
  }, 60_000);

  it('regress --out claims its folder as compile does: a checkout is refused, before and after', async () => {
    const checkout = mkdtempSync(join(root, 'checkout-regress-'));
    mkdirSync(join(checkout, 'site'));
    writeFileSync(join(checkout, 'site', 'index.astro'), 'sources');
    const { dir } = place(synthetic());
    const regressed = await runCli(['regress', '--results', dir, '--out', checkout]);
    expect(regressed.code).toBe(2);
    expect(regressed.stderr).toMatch(/not compile output/);
    expect((await runCli(['compile', '--results', dir, '--out', checkout])).code).toBe(2);
    expect(readFileSync(join(checkout, 'site', 'index.astro'), 'utf8')).toBe('sources');
  }, 60_000);

  it('a command with a pretty-printed --extra-body (tabs, line feeds) is honest and accepted', () => {
    const r = synthetic();
    r.harness.command = ['servebench', 'run', '--engine', 'vllm', '--launcher', 'docker', '--source', r.source ?? 'community', '--extra-body', '{\n\t"top_k": 1\n}'];
    expect(problemsOf(r)).toEqual([]);
  });
});
