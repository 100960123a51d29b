/**
 * The Reproduce block, made only from a recorded command as servebench's option table reads it:
 * a real POSIX shell reads its last line back into exactly that command, and a hostile value
 * stays one argument (nothing runs). The recorded command lines are SYNTHETIC.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_OPTIONS } from '../../harness/contract/command-options.ts';
import { readRecordedArgv, type RecordedCommand } from '../../harness/lib/cli/recorded-argv.ts';
import { reproduceBlock } from '../../harness/contract/reproduce-block.ts';
import { pinnedImage, reproduceLine, reproducibleArgv, type RunToReproduce } from '../../harness/lib/shell/reproduce.ts';

/** The whole block for a run, as compile makes it (its line at ingest, the block around it when it writes the page). */
const reproduceCommand = (run: RunToReproduce & { gitCommit: string | null }, repository: string | null) => reproduceBlock(reproduceLine(run), run.gitCommit, repository);

const COMMIT = '0123456789abcdef0123456789abcdef01234567';
const recorded = ['servebench', 'run', '--engine', 'vllm', '--launcher', 'docker', '--image', 'vllm/vllm-openai:v0.11.0', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--workload', 'chat', '--results-dir', '/home/ci/results', '--hf-cache', '/home/ci/hf', '--no-progress', '--json', '--source', 'official', '--extra-body', `{"top_k": 1, "note": "it's"}`];

function read(argv: readonly string[]): RecordedCommand {
  const result = readRecordedArgv(argv, 'run', RUN_OPTIONS);
  if (!result.ok) throw new Error(result.problem.message);
  return result.parsed;
}

/** What `sh` makes of the block's last line: printf prints each argument on its own line. */
function shellWords(line: string): string[] {
  return execFileSync('sh', ['-c', `set -- ${line.replace(/^npx /, '')}; printf '%s\\n' "$@"`], { encoding: 'utf8' }).trimEnd().split('\n');
}

describe('reproduce a run', () => {
  it('pins the image by the digest docker recorded, whatever form the digest has', () => {
    expect(pinnedImage('vllm/vllm-openai:v0.11.0', 'vllm/vllm-openai@sha256:abc')).toBe('vllm/vllm-openai@sha256:abc');
    expect(pinnedImage('ghcr.io:443/org/img:tag', 'sha256:abc')).toBe('ghcr.io:443/org/img@sha256:abc');
    expect(pinnedImage('localhost:5000/img', 'sha256:abc')).toBe('localhost:5000/img@sha256:abc');
    expect(pinnedImage('img:1', null)).toBeNull();
  });

  it('drops machine-local options and the source, pins --image, keeps everything else in order', () => {
    expect(reproducibleArgv({ command: read(recorded), image: 'vllm/vllm-openai:v0.11.0', imageDigest: 'vllm/vllm-openai@sha256:0123' })).toEqual([
      'servebench', 'run', '--engine', 'vllm', '--launcher', 'docker', '--image', 'vllm/vllm-openai@sha256:0123', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--workload', 'chat', '--extra-body', `{"top_k": 1, "note": "it's"}`,
    ]);
    // The engine's default image (no --image recorded) is pinned too; the --results-dir=X form goes.
    expect(reproducibleArgv({ command: read(['servebench', 'run', '--engine', 'sglang', '--results-dir=/x']), image: 'lmsysorg/sglang:v0.5', imageDigest: 'sha256:9' })).toEqual(['servebench', 'run', '--engine', 'sglang', '--image', 'lmsysorg/sglang@sha256:9']);
  });

  it('writes each flag by its table name, and a value starting with "-" inline (as servebench takes it back)', () => {
    expect(reproducibleArgv({ command: read(['servebench', 'run', '--served-name=-odd', '--tp=2', '--save-requests']), image: null, imageDigest: null })).toEqual(['servebench', 'run', '--served-name=-odd', '--tp', '2', '--save-requests']);
  });

  it('is one block a POSIX shell reads back into the same arguments', () => {
    const run = { command: read(recorded), gitCommit: COMMIT, image: 'vllm/vllm-openai:v0.11.0', imageDigest: 'vllm/vllm-openai@sha256:0123' };
    const lines = reproduceCommand(run, 'https://github.com/example/fork/').split('\n');
    expect(lines.slice(0, 3)).toEqual(['git clone https://github.com/example/fork.git servebench && cd servebench', `git checkout ${COMMIT}`, 'npm ci']);
    expect(lines).toHaveLength(4);
    expect(lines[3]!.startsWith('npx servebench run ')).toBe(true);
    expect(shellWords(lines[3]!)).toEqual(reproducibleArgv(run));
  });

  it('a hostile value stays one quoted argument: the shell runs nothing of it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'servebench-reproduce-'));
    const marker = join(dir, 'pwned');
    const hostile = [`$(touch ${marker})`, `'; touch ${marker}; '`, `\`touch ${marker}\``, `x\ntouch ${marker}`];
    for (const value of hostile) {
      const run = { command: read(['servebench', 'run', '--model', value, `--extra-body={"k": "${value.replace(/\n/g, '\\n')}"}`]), gitCommit: null, image: null, imageDigest: null };
      const block = reproduceCommand(run, null).split('\n');
      expect(block.slice(0, 2)).toEqual([expect.stringMatching(/^# /), 'npm ci']);
      // The command is the rest of the block (a value with a line feed spans lines inside its quotes).
      const words = execFileSync('sh', ['-c', `set -- ${block.slice(2).join('\n').replace(/^npx /, '')}; printf '%s\\0' "$@"`], { encoding: 'utf8' }).split('\0').slice(0, -1);
      expect(words, value).toEqual(reproducibleArgv(run));
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('an unknown or malformed commit checks nothing out; no repository: the block says so and clones nothing', () => {
    const command = read(['servebench', 'run', '--engine', 'embedded']);
    for (const gitCommit of [null, 'main', 'ABCDEF0123456789ABCDEF0123456789ABCDEF01', '0123456; rm -rf ~']) {
      const block = reproduceCommand({ command, gitCommit, image: null, imageDigest: null }, 'https://github.com/servebench/servebench');
      expect(block.split('\n'), String(gitCommit)).toEqual(['git clone https://github.com/servebench/servebench.git servebench && cd servebench', 'npm ci', 'npx servebench run --engine embedded']);
    }
    const unconfigured = reproduceCommand({ command, gitCommit: COMMIT, image: null, imageDigest: null }, null).split('\n');
    expect(unconfigured[0]).toMatch(/^# This site was built without a repository URL/);
    expect(unconfigured.slice(1)).toEqual([`git checkout ${COMMIT}`, 'npm ci', 'npx servebench run --engine embedded']);
    expect(unconfigured.join('\n')).not.toMatch(/git clone|https?:/);
  });

  it('the `npx --yes --package=…` attack has no parsed form, so there is nothing to render', () => {
    const attack = readRecordedArgv(['--yes', '--package=evil-package', '--', 'servebench', 'run', '--engine', 'vllm'], 'run', RUN_OPTIONS);
    expect(attack.ok).toBe(false);
    // Renaming the program does not help either: the flags after it are read by the table.
    expect(readRecordedArgv(['servebench', 'run', '--yes', '--package=evil-package'], 'run', RUN_OPTIONS).ok).toBe(false);
  });
});
