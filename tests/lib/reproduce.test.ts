import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pinnedImage, reproduceCommand, reproducibleArgv } from '../../harness/lib/shell/reproduce.ts';

const recorded = ['servebench', 'run', '--engine', 'vllm', '--launcher', 'docker', '--image', 'vllm/vllm-openai:v0.11.0', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--workload', 'chat', '--results-dir', '/home/ci/results', '--no-progress', '--extra-body', `{"top_k": 1, "note": "it's"}`];

describe('reproduce a run', () => {
  it('pins the image by the digest docker recorded, whatever form the digest has', () => {
    expect(pinnedImage('vllm/vllm-openai:v0.11.0', 'vllm/vllm-openai@sha256:abc')).toBe('vllm/vllm-openai@sha256:abc');
    expect(pinnedImage('ghcr.io:443/org/img:tag', 'sha256:abc')).toBe('ghcr.io:443/org/img@sha256:abc');
    expect(pinnedImage('localhost:5000/img', 'sha256:abc')).toBe('localhost:5000/img@sha256:abc');
    expect(pinnedImage('img:1', null)).toBeNull();
  });

  it('drops machine-local options, pins --image, keeps everything else in order', () => {
    expect(reproducibleArgv({ argv: recorded, gitCommit: 'abc', image: 'vllm/vllm-openai:v0.11.0', imageDigest: 'vllm/vllm-openai@sha256:0123' })).toEqual([
      'servebench', 'run', '--engine', 'vllm', '--launcher', 'docker', '--image', 'vllm/vllm-openai@sha256:0123', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--workload', 'chat', '--extra-body', `{"top_k": 1, "note": "it's"}`,
    ]);
    // The engine's default image (no --image recorded) is pinned too; the --results-dir=X form goes.
    expect(reproducibleArgv({ argv: ['servebench', 'run', '--engine', 'sglang', '--results-dir=/x'], gitCommit: null, image: 'lmsysorg/sglang:v0.5', imageDigest: 'sha256:9' })).toEqual(['servebench', 'run', '--engine', 'sglang', '--image', 'lmsysorg/sglang@sha256:9']);
  });

  it('is one block a POSIX shell reads back into the same arguments', () => {
    const block = reproduceCommand({ argv: recorded, gitCommit: '0123456789abcdef0123456789abcdef01234567', image: 'vllm/vllm-openai:v0.11.0', imageDigest: 'vllm/vllm-openai@sha256:0123' }, 'https://github.com/example/fork/');
    const lines = block.split('\n');
    expect(lines.slice(0, 3)).toEqual(['git clone https://github.com/example/fork.git servebench && cd servebench', 'git checkout 0123456789abcdef0123456789abcdef01234567', 'npm ci']);
    // A real shell parses the last line: printf prints each argument on its own line.
    const parsed = execFileSync('sh', ['-c', `set -- ${lines[3]!.replace(/^npx /, '')}; printf '%s\\n' "$@"`], { encoding: 'utf8' }).trimEnd().split('\n');
    expect(parsed).toEqual(reproducibleArgv({ argv: recorded, gitCommit: null, image: 'vllm/vllm-openai:v0.11.0', imageDigest: 'vllm/vllm-openai@sha256:0123' }));
  });
});
