/**
 * `run --engine-version` reaches the engine it names: the sim (engines/sim.yaml's engine_version
 * serve flag) plays that release and the result records what its /version then reports; a
 * process launch of an engine with no way to take a release is refused before anything starts,
 * instead of running whatever is installed under the version asked for.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { renderServeCommand } from '../../harness/measure/engines/render.ts';
import { loadEngine } from '../../harness/measure/engines/spec-file.ts';
import { resultFilesIn, runCli } from '../cli/run-cli.ts';

describe('run --engine-version', () => {
  it('the sim is launched at that release and the result records the version its server reported', { timeout: 60_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', 'sim', '--engine-version', '1.3.0', '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '1', '--results-dir', results, '--tokenizer', 'none', '--no-progress']);
    expect(outcome.code, outcome.stderr).toBe(0);
    const files = resultFilesIn(results);
    expect(files).toHaveLength(1);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(files[0]!, 'utf8')));
    expect(result.run!.engine.version).toBe('1.3.0');
    expect(result.run!.engine.command).toEqual(expect.arrayContaining(['--engine-version', '1.3.0']));
    expect(result.run!.parameters['engine_version']).toBe('1.3.0');
  });

  it('renders as the sim flag only when given: the default launch is unchanged', () => {
    const sim = loadEngine('sim');
    expect(renderServeCommand(sim, { model: 'm', port: 1 })).not.toContain('--engine-version');
    expect(renderServeCommand(sim, { model: 'm', port: 1, engine_version: '1.4.0' }).slice(-2)).toEqual(['--engine-version', '1.4.0']);
  });

  it('a process launch of an engine that cannot take a release is refused (exit 2), naming the option and the fixes; docker takes it as the tag', async () => {
    const refused = await runCli(['run', '--engine', 'vllm', '--engine-version', '0.11.0', '--model', 'm', '--workload', 'smoke', '--dry-run']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--engine-version 0\.11\.0: engine vllm launched as a process .* no serve flag to ask for a release; leave --engine-version out .* --launcher docker \(vllm's official image at that tag\), or add serve\.flags\.engine_version/);
    expect(refused.stdout).toBe('');
    // docker chooses the release by the image's tag, as before, with no serve flag.
    const docker = await runCli(['run', '--engine', 'vllm', '--launcher', 'docker', '--engine-version', '0.11.0', '--model', 'm', '--workload', 'smoke', '--dry-run']);
    expect(docker.code, docker.stderr).toBe(0);
    expect(docker.stdout).toMatch(/vllm\/vllm-openai:v0\.11\.0 serve m /);
    expect(docker.stdout).not.toMatch(/--engine-version/);
  });
});
