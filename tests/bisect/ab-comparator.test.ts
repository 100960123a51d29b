/**
 * What bisect's real comparator does around ab's procedure (harness/pipeline/bisect/ab-comparator.ts):
 * the `servebench ab` line it records for each comparison, and which llama.cpp releases it builds.
 * The build cache is a temporary folder holding one SYNTHETIC build.json (as `servebench llamacpp
 * build` writes it); no llama.cpp is compiled here: the build path itself is `llamacpp build`'s,
 * tested with it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseCommandArgs } from '../../harness/lib/cli/options.ts';
import { abArgv, ensureLlamaCppBuild, type Builds } from '../../harness/pipeline/bisect/ab-comparator.ts';
import { BISECT_SPEC } from '../../harness/pipeline/bisect/bisect-options.ts';
import { llamaCppRelease } from '../../harness/pipeline/bisect/releases.ts';

let cache: string;

beforeEach(() => {
  cache = mkdtempSync(join(tmpdir(), 'sb-bisect-builds-'));
  vi.stubEnv('SERVEBENCH_CACHE', cache);
  const commit = 'e'.repeat(40);
  mkdirSync(join(cache, 'llama.cpp', commit), { recursive: true });
  writeFileSync(join(cache, 'llama.cpp', commit, 'build.json'), JSON.stringify({ tag: 'b5415', commit, node_llama_cpp: '3.8.1', targets: [], cmake_flags: [], built_at: '2026-12-01T00:00:00Z', build_seconds: 400, jobs: 2 }));
});

afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(cache, { recursive: true, force: true });
});

describe('the comparator around ab', () => {
  it('records each comparison as the `servebench ab` line that reruns it: the A/B and run options given, bisect\'s own left out', () => {
    const raw = parseCommandArgs(BISECT_SPEC, ['--engine', 'llamacpp', '--good', 'b5415', '--bad', 'b8095', '--model', 'm', '--workload', 'cpu-rag', '--concurrency', '4', '--metric', 'ttft_ms_p50', '--blocks', '6', '--budget', '6h', '--no-confirm', '--json']);
    expect(abArgv(raw, 'b5415', 'b5500', '01-x.json')).toEqual(['servebench', 'ab', '--engine', 'llamacpp', '--model', 'm', '--metric', 'ttft_ms_p50', '--blocks', '6', '--no-confirm', '--workload', 'cpu-rag', '--concurrency', '4', '--a', 'b5415', '--b', 'b5500', '--out', '01-x.json']);
  });

  it('a release whose tag the build cache has is not built again, whichever node-llama-cpp release built it, and counted once', async () => {
    const builds: Builds = { built: [], cached: [] };
    const lines: string[] = [];
    // 3.8.2 is synthetic: a JavaScript-only release bundling the b5415 that 3.8.1's build holds.
    await ensureLlamaCppBuild(llamaCppRelease('3.8.2', 'b5415'), builds, (line) => lines.push(line));
    await ensureLlamaCppBuild(llamaCppRelease('3.8.2', 'b5415'), builds, (line) => lines.push(line));
    expect(builds).toEqual({ built: [], cached: ['3.8.2'] });
    expect(lines).toEqual([]);
  });
});
