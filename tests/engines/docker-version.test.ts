/**
 * An engine whose version is read by a command (LMDeploy: its api_server has no version endpoint)
 * records it on a docker launch too: the command runs in the serving container (`docker exec`), so
 * the completed result has its version and `validate` takes it. Against the FAKE docker CLI
 * (tests/fixtures/fake-docker: no Docker daemon runs here), whose "container" is the simulated
 * engine and whose `exec` finds programs in $FAKE_DOCKER_EXEC_PATH, standing for the image's PATH:
 * the `lmdeploy` placed there is a synthetic stand-in printing what `lmdeploy --version` prints
 * (argparse's version action: the version and a newline).
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { resultFilesIn, runCli } from '../cli/run-cli.ts';

const FAKE_DOCKER = resolve('tests/fixtures/fake-docker');

function dockerCalls(state: string): string[][] {
  const log = join(state, 'argv.log');
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as string[]) : [];
}

describe('a command-read version on a docker launch', () => {
  it('LMDeploy in its image: `lmdeploy --version` runs in the container, the result records 0.12.3 and validate takes it (exit 0)', { timeout: 90_000 }, async () => {
    const state = mkdtempSync(join(tmpdir(), 'fake-docker-'));
    const image = mkdtempSync(join(tmpdir(), 'fake-image-path-'));
    writeFileSync(join(image, 'lmdeploy'), '#!/bin/sh\n[ "$1" = "--version" ] && echo 0.12.3\n');
    chmodSync(join(image, 'lmdeploy'), 0o755);
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(
      ['run', '--engine', 'lmdeploy', '--launcher', 'docker', '--engine-version', '0.12.3', '--gpu', '0', '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '1', '--max-model-len', '4096', '--max-num-seqs', '8', '--tokenizer', 'none', '--results-dir', results, '--no-progress'],
      90_000,
      { PATH: `${FAKE_DOCKER}:${process.env['PATH']}`, FAKE_DOCKER_STATE: state, FAKE_DOCKER_EXEC_PATH: image },
    );
    expect(outcome.code, outcome.stderr).toBe(0);
    const [file] = resultFilesIn(results);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(file!, 'utf8')));
    expect(result.run!.engine).toMatchObject({ name: 'lmdeploy', launcher: 'docker', image: 'openmmlab/lmdeploy:v0.12.3-cu12.8', version: '0.12.3' });
    const calls = dockerCalls(state);
    const run = calls.find((c) => c[0] === 'run')!;
    const container = run[run.indexOf('--name') + 1]!;
    expect(calls).toContainEqual(['exec', container, 'lmdeploy', '--version']);
    // The command it served with (engines/lmdeploy.yaml), the entrypoint its image runs.
    expect(run.slice(run.indexOf('--entrypoint'))).toEqual(expect.arrayContaining(['--entrypoint', 'lmdeploy', 'openmmlab/lmdeploy:v0.12.3-cu12.8', 'serve', 'api_server', 'sim-model', '--backend', 'turbomind', '--session-len', '4096', '--max-batch-size', '8']));
  });

  it('a container whose image has no such program records no version (the OCI runtime refuses the exec), and validate refuses the completed result (exit 4)', { timeout: 90_000 }, async () => {
    const state = mkdtempSync(join(tmpdir(), 'fake-docker-'));
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(
      ['run', '--engine', 'lmdeploy', '--launcher', 'docker', '--engine-version', '0.12.3', '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '1', '--tokenizer', 'none', '--results-dir', results, '--no-progress'],
      90_000,
      { PATH: `${FAKE_DOCKER}:${process.env['PATH']}`, FAKE_DOCKER_STATE: state, FAKE_DOCKER_EXEC_PATH: mkdtempSync(join(tmpdir(), 'empty-image-')) },
    );
    expect(outcome.code).toBe(4);
    expect(dockerCalls(state).some((c) => c[0] === 'exec')).toBe(true);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(resultFilesIn(results)[0]!, 'utf8')));
    expect(result.run!.engine.version).toBeNull();
  });
});
