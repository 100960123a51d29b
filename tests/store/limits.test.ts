/**
 * Every limit of the store (harness/store/store-limits.ts), driven at and just past it: a file at a
 * limit validates, compiles and is published; a file just past one is refused by validate with one
 * line naming the rule, and compile prints the same line, exits 1 (never 70) and publishes the
 * other files. The files are SYNTHETIC (tests/store/limit-results.ts), grown to each limit here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { runSummarize } from '../../harness/pipeline/submission/command.ts';
import type { SubmissionSummary } from '../../harness/pipeline/submission/pr-summary.ts';
import { CSV_DEFAULT_MAX_LINE_BYTES, csvLineSizeOptions, INTEGER_MAX, MAX_NAME_CHARS, MAX_NESTING_DEPTH, MAX_RESULT_BYTES, STAGED_ROW_GROWTH, tooDeepAt } from '../../harness/store/store-limits.ts';
import { writeResult } from '../../bench/lib/synthetic-results.ts';
import { runCli } from '../cli/run-cli.ts';
import { writeFixturePrices } from './fixture-results.ts';
import { limitBase, logitBiasResult, mapFileOf, nested, placeText, prettyJson, quotesFileOf, stagedRowOf, stagedRunRowBytes } from './limit-results.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-limits-'));
const prices = writeFixturePrices(root);

/** A file at a limit: it must be published. */
interface AtLimit {
  readonly what: string;
  readonly text: string;
}

/** A file just past a limit: validate's one line for it names `rule`. */
interface PastLimit extends AtLimit {
  readonly rule: RegExp;
}

const edited = (seed: number, edit: (result: RunResult) => void): string => {
  const result = limitBase(seed);
  edit(result);
  return prettyJson(result);
};

const AT: AtLimit[] = [];
const PAST: PastLimit[] = [];

beforeAll(() => {
  AT.push(
    { what: "the review's 150,000-entry logit_bias (a 4.6 MB row, before: compile exit 70)", text: prettyJson(logitBiasResult(1)) },
    { what: `a file of exactly ${MAX_RESULT_BYTES} bytes whose command is quotes (the longest row a file can stage)`, text: quotesFileOf(2, MAX_RESULT_BYTES) },
    { what: `a row of exactly ${CSV_DEFAULT_MAX_LINE_BYTES} bytes (DuckDB's default max_line_size)`, text: stagedRowOf(3, CSV_DEFAULT_MAX_LINE_BYTES) },
    { what: `a row of ${CSV_DEFAULT_MAX_LINE_BYTES + 1} bytes (before: compile exit 70)`, text: stagedRowOf(4, CSV_DEFAULT_MAX_LINE_BYTES + 1) },
    // The document root is level 1: extra_body is level 3, engine.config level 4.
    { what: `workload.extra_body nested to level ${MAX_NESTING_DEPTH}`, text: edited(5, (r) => void (r.workload.extra_body = nested(MAX_NESTING_DEPTH - 2))) },
    { what: `run.engine.config nested to level ${MAX_NESTING_DEPTH}`, text: edited(6, (r) => void (r.run!.engine.config = nested(MAX_NESTING_DEPTH - 3))) },
    { what: `a ${MAX_NAME_CHARS}-character CPU model`, text: edited(7, (r) => void (r.run!.host.cpu_model = `Synthetic ${'C'.repeat(MAX_NAME_CHARS - 10)}`)) },
    { what: 'host.cpus at the INTEGER maximum', text: edited(8, (r) => void (r.run!.host.cpus = INTEGER_MAX)) },
    { what: 'host.memory_bytes at the BIGINT maximum JSON carries exactly (2^53 − 1)', text: edited(9, (r) => void (r.run!.host.memory_bytes = Number.MAX_SAFE_INTEGER)) },
  );
  PAST.push(
    { what: `a file of ${MAX_RESULT_BYTES + 1} bytes`, text: quotesFileOf(12, MAX_RESULT_BYTES + 1), rule: /\[file-size\] the file is 8388609 bytes, over the 8388608 limit/ },
    { what: `workload.extra_body nested to level ${MAX_NESTING_DEPTH + 1}`, text: edited(15, (r) => void (r.workload.extra_body = nested(MAX_NESTING_DEPTH - 1))), rule: /workload\.extra_body(\.a)+: \[nesting-depth\] nested deeper than 32 levels/ },
    { what: `run.engine.config nested to level ${MAX_NESTING_DEPTH + 1}`, text: edited(16, (r) => void (r.run!.engine.config = nested(MAX_NESTING_DEPTH - 2))), rule: /run\.engine\.config(\.a)+: \[nesting-depth\]/ },
    // Before: validate itself ended with "internal error: Maximum call stack size exceeded" (exit 70).
    { what: 'run.engine.config nested 100,000 levels', text: prettyJson(limitBase(17)).replace('"engine": {', `"engine": {"config": ${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)},`), rule: /run\.engine\.config(\.a)+: \[nesting-depth\] nested deeper than 32 levels/ },
    { what: `a ${MAX_NAME_CHARS + 1}-character CPU model`, text: edited(18, (r) => void (r.run!.host.cpu_model = `Synthetic ${'C'.repeat(MAX_NAME_CHARS - 9)}`)), rule: /run\.host\.cpu_model: \[name-length\] is 201 characters, over the 200/ },
    { what: 'host.cpus one past the INTEGER maximum', text: edited(19, (r) => void (r.run!.host.cpus = INTEGER_MAX + 1)), rule: /\[column-fit\] the compiled column host_cpus \(INTEGER\) is 2147483648/ },
    { what: 'host.memory_bytes at 2^53', text: edited(20, (r) => void (r.run!.host.memory_bytes = 2 ** 53)), rule: /run\.host\.memory_bytes: \[schema\] Too big: expected int to be <=9007199254740991/ },
  );
}, 120_000);

/** Problem lines of a validate or compile run, by file. */
function linesByFile(stderr: string, files: readonly string[]): Map<string, string[]> {
  const byFile = new Map(files.map((file) => [file, [] as string[]]));
  for (const line of stderr.split('\n')) {
    const file = files.find((f) => line.startsWith(`${f}:`));
    if (file !== undefined) byFile.get(file)!.push(line);
  }
  return byFile;
}

async function rowsOf(sql: string): Promise<Array<Record<string, unknown>>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS() as Array<Record<string, unknown>>;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('the staging limits, as functions', () => {
  it('reads as before up to DuckDB\'s default line size, and sizes the reader to a longer line in whole MiB', () => {
    expect(csvLineSizeOptions(CSV_DEFAULT_MAX_LINE_BYTES - 2)).toBe('');
    expect(csvLineSizeOptions(CSV_DEFAULT_MAX_LINE_BYTES + 1)).toBe(', max_line_size = 2097152, buffer_size = 4194304');
    expect(csvLineSizeOptions(20 * 1024 * 1024)).toBe(', max_line_size = 22020096, buffer_size = 44040192');
  });

  it('names the first path nested too deep, without recursion', () => {
    expect(tooDeepAt({ a: [{ b: 1 }] }, 3)).toBeNull();
    expect(tooDeepAt({ a: [{ b: { c: 1 } }] }, 3)).toBe('a[0].b');
    expect(tooDeepAt(JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`), 32)).toBe(`${'[0]'.repeat(32)}`);
  });

  it('a file at the size limit stages its longest possible row, within the documented growth', () => {
    const row = stagedRunRowBytes(quotesFileOf(30, MAX_RESULT_BYTES));
    expect(row).toBeGreaterThan((STAGED_ROW_GROWTH - 0.1) * MAX_RESULT_BYTES);
    expect(row).toBeLessThanOrEqual(STAGED_ROW_GROWTH * MAX_RESULT_BYTES);
  });
});

describe('every limit at and just past it, through validate and compile', () => {
  let dir: string;
  const at = new Map<string, AtLimit>();
  const past = new Map<string, PastLimit>();
  let validateLines: Map<string, string[]>;

  beforeAll(() => {
    dir = join(root, 'results');
    for (const file of AT) at.set(placeText(dir, file.text), file);
    for (const file of PAST) past.set(placeText(dir, file.text), file);
    // An ordinary file beside them: the others must not keep it from being published.
    at.set(writeResult(dir, limitBase(40)), { what: 'an ordinary file', text: '' });
  });

  it('validate: every file at a limit is valid; each file past one is refused with one line naming its rule', async () => {
    const { code, stderr } = await runCli(['validate', '--results', dir], 120_000);
    expect(code, stderr.slice(0, 2000)).toBe(1);
    validateLines = linesByFile(stderr, [...at.keys(), ...past.keys()]);
    for (const [file, { what }] of at) expect(validateLines.get(file), what).toEqual([]);
    for (const [file, { what, rule }] of past) {
      expect(validateLines.get(file), what).toHaveLength(1);
      expect(validateLines.get(file)![0], what).toMatch(rule);
    }
    expect(stderr).toContain(`${PAST.length} problems in ${PAST.length} files (${AT.length + 1 + PAST.length} checked)`);
  }, 180_000);

  it('compile: the same lines, exit 1 (never 70), and every file at a limit published byte for byte', async () => {
    const out = join(root, 'out');
    const { code, stderr } = await runCli(['compile', '--results', dir, '--out', out], 180_000);
    expect(code, stderr.slice(0, 2000)).toBe(1);
    expect(linesByFile(stderr, [...at.keys(), ...past.keys()])).toEqual(validateLines);
    const runs = await rowsOf(`SELECT file, harness_argv, host_cpu, host_cpus, host_memory_bytes FROM read_parquet('${join(out, 'parquet', 'latest', 'runs', '*.parquet')}') ORDER BY file`);
    expect(runs.map((r) => r.file)).toEqual([...at.keys()].sort());
    // The longest values arrive whole: the staged row of each file is read back to the byte.
    for (const row of runs) {
      const text = readFileSync(join(dir, String(row.file)), 'utf8');
      const result = JSON.parse(text) as RunResult;
      expect(row.harness_argv, at.get(String(row.file))!.what).toBe(JSON.stringify(result.harness.command));
      expect(row.host_cpu).toBe(result.run!.host.cpu_model);
      expect(Number(row.host_cpus)).toBe(result.run!.host.cpus);
      expect(BigInt(row.host_memory_bytes as bigint)).toBe(BigInt(result.run!.host.memory_bytes));
    }
    const meta = JSON.parse(readFileSync(join(out, 'site', 'meta.json'), 'utf8')) as { runs: number; invalid_files: number };
    expect(meta).toMatchObject({ runs: at.size, invalid_files: past.size });
  }, 240_000);
});

describe('files at the size limit in a batch large enough for worker threads', () => {
  it('a million-entry map and a command of quotes, 8 MiB each, compile with 200 other files (before: the worker ran out of heap, exit 70)', async () => {
    const dir = join(root, 'many');
    for (let i = 0; i < 200; i++) writeResult(dir, limitBase(100 + i, 1 + (i % 28)));
    const map = placeText(dir, mapFileOf(50, MAX_RESULT_BYTES));
    const quotes = placeText(dir, quotesFileOf(51, MAX_RESULT_BYTES));
    const { code, stderr } = await runCli(['compile', '--results', dir, '--out', join(root, 'many-out')], 240_000);
    expect(code, stderr.slice(0, 2000)).toBe(0);
    expect(stderr).toContain('202 result files: 202 read, 0 unchanged, 0 dropped; 202 valid runs');
    const runs = await rowsOf(`SELECT file FROM read_parquet('${join(root, 'many-out', 'parquet', 'latest', 'runs', '*.parquet')}') WHERE file IN ('${map}', '${quotes}')`);
    expect(runs).toHaveLength(2);
  }, 300_000);
});

describe('summarize reads the same store', () => {
  it("a pull request adding the 150,000-entry logit_bias and an oversized file: the first is summarized, the second refused by its rule (before: exit 70)", async () => {
    const repo = join(root, 'repo');
    const dir = join(repo, 'results');
    writeResult(dir, limitBase(60));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    const logitBias = placeText(dir, prettyJson(logitBiasResult(61)));
    const oversized = placeText(dir, quotesFileOf(62, MAX_RESULT_BYTES + 1));
    let stdout = '';
    let stderr = '';
    const code = await runSummarize(['--base', 'main', '--results', dir, '--out', join(repo, 'out'), '--prices', prices, '--json'], { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
    expect(code, stderr).toBe(1);
    const summary = JSON.parse(stdout) as SubmissionSummary;
    expect(summary.added.find((a) => a.file === logitBias)).toMatchObject({ valid: true, points: 1 });
    expect(summary.problems.map((p) => [p.file, p.message])).toEqual([[oversized, `[file-size] the file is ${MAX_RESULT_BYTES + 1} bytes, over the ${MAX_RESULT_BYTES} limit`]]);
  }, 180_000);
});
