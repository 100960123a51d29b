/**
 * detect appends each release it reports to the known-release list (releases.json beside its
 * state), which validate and compile read: a vLLM release from a fake GitHub with its image on a
 * fake Docker Hub, and node-llama-cpp releases from the loopback npm registry serving the recorded
 * packument (tests/pipeline/fake-npm-registry.ts), whose llama.cpp tags are what results record.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readReleasesFile } from '../../harness/contract/releases.ts';
import { runDetect } from '../../harness/pipeline/detect/command.ts';
import { engineVersionKnown } from '../../harness/store/known-releases.ts';
import { fakeGithub, type FakeGithub } from '../kit/fakes/fake-github-releases.ts';
import { fakeDockerHub, type FakeDockerHub } from '../kit/fakes/fake-registries.ts';
import { startFakeServer, type FakeServer } from '../kit/fakes/fake-server.ts';
import { fakeNpmRegistry, RECORDED_TAGS, type FakeNpmRegistry } from './fake-npm-registry.ts';

let server: FakeServer;
let github: FakeGithub;
let hub: FakeDockerHub;
let npm: FakeNpmRegistry;
let dir: string;
/** The llama.cpp tag each node-llama-cpp version's tarball bundles: the recorded ones, and those a test publishes. */
let tags: Record<string, string>;

beforeEach(async () => {
  github = fakeGithub({ now: () => Date.parse('2026-10-01T06:00:00Z') });
  hub = fakeDockerHub();
  npm = fakeNpmRegistry(() => server.url);
  server = await startFakeServer([github.handler, hub.handler, npm.handler]);
  dir = mkdtempSync(join(tmpdir(), 'servebench-detect-releases-'));
  tags = { ...RECORDED_TAGS };
});

afterEach(async () => {
  await server.close();
  npm.close();
  rmSync(dir, { recursive: true, force: true });
});

async function detect(engine: string, day: string, extra: readonly string[] = []): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await runDetect(['--engine', engine, '--state', join(dir, 'fleet', 'detect-state.json'), '--github-api', server.url, '--registry-url', `docker.io=${server.url}`, '--fleet', 'fleet/fleet.yaml', ...extra], {
    env: { npm_config_registry: server.url },
    policy: { sleep: async () => {}, backoffMs: 1 },
    now: () => new Date(`${day}T06:00:00Z`),
    bundles: async (_pkg, version) => ({ tag: tags[version]!, commit: 'c'.repeat(40) }),
    stdout: () => {},
    stderr: (text) => void (stderr += text),
  });
  return { code, stderr };
}

const releasesFile = () => join(dir, 'fleet', 'releases.json');

describe('detect appends the releases it reports to the known-release list', () => {
  it('a vLLM release, once its image is out: known to validate and compile from then on', async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.40.0', published_at: '2026-09-30T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.40.0');
    const first = await detect('vllm', '2026-10-01');
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`1 known release appended to ${releasesFile()} (vllm 0.40.0)`);
    const list = readReleasesFile(releasesFile(), { flag: 'test' });
    expect(list.engines.vllm!.releases).toEqual([
      { version: '0.40.0', tag: 'v0.40.0', published_at: '2026-09-30T00:00:00Z', release_url: expect.stringContaining('v0.40.0'), source: expect.stringMatching(/^servebench detect 2026-10-01: /) },
    ]);
    expect(engineVersionKnown('vllm', '0.40.0', [releasesFile()])).toBe(true);
    // The next poll reports nothing new and leaves the list as it was.
    const before = readFileSync(releasesFile(), 'utf8');
    expect((await detect('vllm', '2026-10-02')).stderr).toContain('no new known release');
    expect(readFileSync(releasesFile(), 'utf8')).toBe(before);
  });

  it('a version waiting for its image is not appended until it is reported', async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.41.0', published_at: '2026-09-30T00:00:00Z' });
    await detect('vllm', '2026-10-01');
    expect(existsSync(releasesFile())).toBe(false);
    hub.push('vllm/vllm-openai', 'v0.41.0');
    await detect('vllm', '2026-10-02');
    expect(readReleasesFile(releasesFile(), { flag: 'test' }).engines.vllm!.releases.map((r) => r.version)).toEqual(['0.41.0']);
  });

  it('llama.cpp: the tag the node-llama-cpp release bundles (what results record), with the npm release beside it', async () => {
    expect((await detect('llamacpp', '2026-10-01')).code).toBe(0);
    const newest = readReleasesFile(releasesFile(), { flag: 'test' }).engines.llamacpp!.releases;
    expect(newest.map((r) => [r.version, r.npm])).toEqual([['v0.4.0', { package: 'node-llama-cpp', version: '3.21.1' }]]);
    expect(newest[0]!.source).toMatch(/node-llama-cpp 3\.21\.1's tarball bundles llama\.cpp v0\.4\.0/);
    npm.publish('3.30.0', 'b9000', '2026-10-05T00:00:00Z');
    tags['3.30.0'] = 'b9000';
    await detect('llamacpp', '2026-10-06');
    expect(readReleasesFile(releasesFile(), { flag: 'test' }).engines.llamacpp!.releases.map((r) => r.version)).toEqual(['v0.4.0', 'b9000']);
  });

  it('--dry-run and --releases: nothing written with the first, another file with the second', async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.42.0', published_at: '2026-09-30T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.42.0');
    expect((await detect('vllm', '2026-10-01', ['--dry-run'])).stderr).toContain('1 known release not appended (--dry-run)');
    expect(existsSync(releasesFile())).toBe(false);
    const other = join(dir, 'elsewhere.json');
    await detect('vllm', '2026-10-01', ['--releases', other]);
    expect(readReleasesFile(other, { flag: 'test' }).engines.vllm!.releases.map((r) => r.version)).toEqual(['0.42.0']);
  });
});
