/**
 * detect for llama.cpp, whose releases come from npm (engines/llamacpp.yaml: source.npm
 * node-llama-cpp): new stable node-llama-cpp versions from 3.0, each with the llama.cpp tag its
 * tarball bundles.
 * - Most tests: a loopback FAKE of the npm registry (tests/pipeline/fake-npm-registry.ts) serving a
 *   RECORDED packument (tests/pipeline/fixtures/node-llama-cpp.packument.json: the registry's
 *   answer, trimmed to five versions) with ETags and 304s as the registry's CDN answers, and the
 *   tags read from the real tarballs (3.6.0 → b4753, 3.8.1 → b5415, 3.21.1 → v0.4.0).
 * - One test reads the tarballs through the real `npm pack` (registrySource) from that fake.
 * - One test asks the REAL registry (registry.npmjs.org): 3.8.1 bundles b5415. One packument and
 *   one tarball (about 10–20 MB). Only with SERVEBENCH_TEST_NETWORK=1: the unit run makes no
 *   request off the machine (tests/setup/loopback-only.mjs), and the recorded packument above was
 *   taken from that registry (https://registry.npmjs.org/node-llama-cpp, 2026-12-02, commit 55cdf2d), so the default run checks the same code on the same answer
 *   (tests/skips.ts says why it is skipped on CI).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EngineSchema } from '../../harness/contract/engine.ts';
import { loadEngine } from '../../harness/measure/engines/spec-file.ts';
import { runDetect } from '../../harness/pipeline/detect/command.ts';
import type { DetectReport } from '../../harness/pipeline/detect/detect.ts';
import { isBundlingVersion, type BundleLookup } from '../../harness/pipeline/detect/detect-npm.ts';
import type { DetectState } from '../../harness/pipeline/detect/state.ts';
import { defaultPolicy } from '../../harness/pipeline/http/http-conditional.ts';
import { fetchPackument, npmClient } from '../../harness/pipeline/http/npm-registry.ts';
import { startFakeServer, type FakeServer } from '../kit/fakes/fake-server.ts';
import { fakeNpmRegistry, RECORDED_TAGS, type FakeNpmRegistry } from './fake-npm-registry.ts';

let server: FakeServer;
let npm: FakeNpmRegistry;
let dir: string;
let stateFile: string;
let lookups: string[];
let failing: Set<string>;
let tags: Record<string, string>;

/** The recorded tags (and those the test publishes); a version in `failing` throws as an unreachable registry would. */
const recordedBundles: BundleLookup = async (pkg, version) => {
  lookups.push(`${pkg}@${version}`);
  if (failing.has(version)) throw new Error(`npm pack node-llama-cpp@${version} failed: ETIMEDOUT`);
  const tag = tags[version];
  if (tag === undefined) throw new Error(`no recorded tag for ${version}`);
  return { tag, commit: `${tag}`.padEnd(40, '0').replace(/[^0-9a-f]/g, 'a') };
};

beforeEach(async () => {
  npm = fakeNpmRegistry(() => server.url);
  server = await startFakeServer([npm.handler]);
  dir = mkdtempSync(join(tmpdir(), 'servebench-detect-npm-'));
  stateFile = join(dir, 'detect-state.json');
  lookups = [];
  failing = new Set();
  tags = { ...RECORDED_TAGS };
});

afterEach(async () => {
  await server.close();
  npm.close();
  rmSync(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

async function detect(options: { bundles?: BundleLookup | null; env?: NodeJS.ProcessEnv; day?: string } = {}): Promise<{ code: number; report: DetectReport; state: DetectState; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runDetect(['--engine', 'llamacpp', '--state', stateFile, '--fleet', 'fleet/fleet.yaml'], {
    env: options.env ?? { npm_config_registry: server.url },
    policy: { sleep: async () => {}, backoffMs: 1 },
    now: () => new Date(`${options.day ?? '2026-10-01'}T06:00:00Z`),
    ...(options.bundles === null ? {} : { bundles: options.bundles ?? recordedBundles }),
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  });
  return { code, report: JSON.parse(stdout) as DetectReport, state: JSON.parse(readFileSync(stateFile, 'utf8')) as DetectState, stderr };
}

describe('detect reads llama.cpp releases from npm (recorded packument)', () => {
  it('the engine spec declares the npm source and keeps its GitHub repository for links', () => {
    const engine = loadEngine('llamacpp');
    expect(engine.source).toMatchObject({ repository: 'ggml-org/llama.cpp', npm: 'node-llama-cpp' });
    const spec = { ...engine, source: { ...engine.source }, local_build: undefined };
    const parsed = EngineSchema.safeParse(spec);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]).toMatchObject({ path: ['source', 'npm'], message: expect.stringContaining('only an engine with local_build: llamacpp') });
  });

  it('only stable x.y.z from 3.0 count', () => {
    expect(['3.0.0', '3.8.1', '3.21.1', '10.0.0'].every(isBundlingVersion)).toBe(true);
    expect(['2.8.16', '3.0.0-beta.44', '3.8', 'v3.8.1', '3.8.1.1'].some(isBundlingVersion)).toBe(false);
  });

  it('first sighting reports the newest version with its bundled tag; the others are seen unread; the next poll is a 304', async () => {
    const first = await detect();
    expect(first.code).toBe(0);
    expect(first.report.new).toEqual([
      {
        engine: 'llamacpp',
        version: '3.21.1',
        tag: 'v0.4.0',
        release_url: 'https://github.com/ggml-org/llama.cpp/releases/tag/v0.4.0',
        // The recorded registry writes microseconds and +00:00: read as the same instant.
        published_at: '2026-09-13T03:55:41.408Z',
        image: null,
        images: [],
        npm: { package: 'node-llama-cpp', bundle_commit: expect.stringMatching(/^[0-9a-f]{40}$/) },
      },
    ]);
    expect(lookups).toEqual(['node-llama-cpp@3.21.1']);
    const state = first.state.engines['llamacpp']!;
    expect(state.source).toBe('npm');
    // 2.x and the 3.0 betas are not versions the lane can build: never listed.
    expect(Object.keys(state.seen)).toEqual(['3.6.0', '3.8.1', '3.21.1']);
    expect(state.upstream_tags).toEqual({ '3.21.1': 'v0.4.0' });
    expect(state.etags['/node-llama-cpp']).toMatch(/^W\/"/);
    expect(first.stderr).toContain('new      llamacpp 3.21.1  bundles v0.4.0 (npm node-llama-cpp');

    const second = await detect();
    expect([second.report.new, second.report.errors, lookups.length]).toEqual([[], [], 1]);
    expect(npm.answered.filter((a) => a.path === '/node-llama-cpp').map((a) => a.status)).toEqual([200, 304]);
  });

  it('a new version is read once; one bundling a tag already measured is seen with a note; a deprecated one is skipped', async () => {
    await detect();
    tags['3.22.0'] = 'b6000';
    tags['3.22.1'] = 'b6000';
    npm.publish('3.22.0', 'b6000', '2026-10-02T00:00:00.000Z');
    npm.publish('3.22.1', 'b6000', '2026-10-03T00:00:00.000Z');
    npm.publish('3.23.0', 'b6100', '2026-10-04T00:00:00.000Z');
    npm.deprecate('3.23.0', 'broken build, use 3.23.1');
    const next = await detect({ day: '2026-10-05' });
    expect(next.report.new.map((v) => `${v.version} ${v.tag} ${v.published_at}`)).toEqual(['3.22.0 b6000 2026-10-02T00:00:00.000Z']);
    expect(next.report.notes.map((n) => n.message)).toEqual([
      '3.23.0 recorded as seen, not reported: deprecated on npm (broken build, use 3.23.1)',
      '3.22.1 recorded as seen, not reported: it bundles llama.cpp b6000, as 3.22.0 does (the same engine build)',
    ]);
    expect(lookups.slice(1)).toEqual(['node-llama-cpp@3.22.0', 'node-llama-cpp@3.22.1']);
    expect(next.state.engines['llamacpp']!.upstream_tags).toEqual({ '3.21.1': 'v0.4.0', '3.22.0': 'b6000', '3.22.1': 'b6000' });
  });

  it('a tarball that cannot be read keeps the version pending (exit 1), re-checked after a 304, then reported', async () => {
    await detect();
    tags['3.22.0'] = 'b6000';
    npm.publish('3.22.0', 'b6000');
    failing.add('3.22.0');
    const failed = await detect();
    expect(failed.code).toBe(1);
    expect(failed.report.errors.map((e) => e.message)).toEqual([expect.stringContaining('3.22.0: could not read the llama.cpp tag its tarball bundles (re-checked on the next poll): npm pack node-llama-cpp@3.22.0 failed')]);
    expect(Object.keys(failed.state.engines['llamacpp']!.pending)).toEqual(['3.22.0']);
    failing.clear();
    const retried = await detect();
    expect(npm.answered.filter((a) => a.path === '/node-llama-cpp').map((a) => a.status)).toEqual([200, 200, 304]);
    expect([retried.code, retried.report.new.map((v) => v.version), retried.state.engines['llamacpp']!.pending]).toEqual([0, ['3.22.0'], {}]);
  });

  it('a state written by a GitHub poll (llama.cpp build numbers) is a first sighting of the npm versions', async () => {
    const github: DetectState = { schema_version: 1, engines: { llamacpp: { source: 'releases', etags: { '/repos/ggml-org/llama.cpp/releases?per_page=100': 'W/"x"' }, seen: { '6125': '2026-09-30' }, pending: {} } } };
    writeFileSync(stateFile, JSON.stringify(github));
    const run = await detect();
    expect(run.report.new.map((v) => v.version)).toEqual(['3.21.1']);
    expect(run.report.notes.map((n) => n.message)).toEqual(['its state was written by a GitHub poll (releases); now read from npm (node-llama-cpp): a first sighting']);
    expect(Object.keys(run.state.engines['llamacpp']!.seen)).toEqual(['3.6.0', '3.8.1', '3.21.1']);
  });

  it('reads the bundled tag with the real `npm pack` (registrySource) from the registry npm_config_registry names', async () => {
    npm.tarballsForRecorded();
    vi.stubEnv('npm_config_registry', server.url);
    const run = await detect({ bundles: null });
    expect(run.report.errors).toEqual([]);
    expect(run.report.new.map((v) => [v.version, v.tag])).toEqual([['3.21.1', 'v0.4.0']]);
    expect(npm.answered.some((a) => a.path === '/node-llama-cpp/-/node-llama-cpp-3.21.1.tgz' && a.status === 200)).toBe(true);
    // The bundle's commit, as git reads it from the tarball's bundle.
    const commit = run.report.new[0]!.npm!.bundle_commit;
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
  }, 60_000);
});

describe.runIf(process.env['SERVEBENCH_TEST_NETWORK'] === '1')('the REAL npm registry', () => {
  it('node-llama-cpp 3.8.1 bundles llama.cpp b5415 (one packument, one tarball)', async () => {
    const registry = npmClient(defaultPolicy, {});
    const packument = await fetchPackument(registry, 'node-llama-cpp', null);
    if (!packument.changed) throw new Error('a first GET cannot be a 304');
    const stable = packument.versions.map((v) => v.version).filter(isBundlingVersion);
    expect(stable).toContain('3.8.1');
    // Every other version already seen, so the poll reads exactly one tarball: 3.8.1's.
    const seen = Object.fromEntries(stable.filter((v) => v !== '3.8.1').map((v) => [v, '2026-01-01']));
    writeFileSync(stateFile, JSON.stringify({ schema_version: 1, engines: { llamacpp: { source: 'npm', etags: {}, seen, pending: {} } } }));
    const run = await detect({ bundles: null, env: {} });
    expect(run.report.errors).toEqual([]);
    expect(run.report.new.map((v) => [v.engine, v.version, v.tag, v.release_url])).toEqual([['llamacpp', '3.8.1', 'b5415', 'https://github.com/ggml-org/llama.cpp/releases/tag/b5415']]);
    expect(run.report.new[0]!.npm!.bundle_commit).toMatch(/^[0-9a-f]{40}$/);
  }, 180_000);
});
