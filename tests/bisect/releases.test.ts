/**
 * The releases a bisection walks (harness/pipeline/bisect/releases.ts).
 * llama.cpp: the loopback FAKE npm registry of detect's tests (tests/pipeline/fake-npm-registry.ts),
 * serving the RECORDED packument (3.6.0 → b4753, 3.8.1 → b5415, 3.21.1 → v0.4.0, plus a 2.x and a
 * beta), to which each test publishes SYNTHETIC versions bundling synthetic tags; tarball tags are
 * read by an injected lookup, as detect's tests read them, counting what it was asked. The known
 * tags of the checkout (fleet/releases.json) are real; the build cache is an empty folder, or one
 * synthetic build.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareLink, explicitReleases, knownBundledTags, npmReleases, type NpmReleaseSources } from '../../harness/pipeline/bisect/releases.ts';
import type { BundleLookup } from '../../harness/pipeline/detect/detect-npm.ts';
import { defaultPolicy } from '../../harness/pipeline/http/http-conditional.ts';
import { fetchPackument, npmClient } from '../../harness/pipeline/http/npm-registry.ts';
import { startFakeServer, type FakeServer } from '../kit/fakes/fake-server.ts';
import { fakeNpmRegistry, RECORDED_TAGS, type FakeNpmRegistry } from '../pipeline/fake-npm-registry.ts';

let server: FakeServer;
let npm: FakeNpmRegistry;
let cache: string;
let lookups: string[];
/** Synthetic: what each published version's tarball bundles. */
let tags: Record<string, string>;

const lookup: BundleLookup = async (_pkg, version) => {
  lookups.push(version);
  const tag = tags[version];
  if (tag === undefined) throw new Error(`no tag recorded for ${version}`);
  return { tag, commit: 'c'.repeat(40) };
};

function publish(versions: Record<string, string>): void {
  for (const [version, tag] of Object.entries(versions)) {
    npm.publish(version, tag, '2026-06-01T00:00:00Z');
    tags[version] = tag;
  }
}

async function sources(): Promise<NpmReleaseSources> {
  const packument = await fetchPackument(npmClient({ ...defaultPolicy, retries: 0 }, { npm_config_registry: server.url }), 'node-llama-cpp', null);
  if (!packument.changed) throw new Error('304');
  const env = { SERVEBENCH_CACHE: cache };
  return { versions: packument.versions, known: knownBundledTags(env), bundles: lookup, env };
}

beforeEach(async () => {
  npm = fakeNpmRegistry(() => server.url);
  server = await startFakeServer([npm.handler]);
  cache = mkdtempSync(join(tmpdir(), 'sb-bisect-cache-'));
  lookups = [];
  tags = { ...RECORDED_TAGS };
  // Synthetic history between 3.8.1 (b5415) and 3.16.0 (b8095, as fleet/releases.json records it).
  publish({ '3.9.0': 'b5500', '3.10.0': 'b5600', '3.10.1': 'b5600', '3.11.0': 'b5700', '3.12.0': 'b6000', '3.13.0-beta.1': 'b6100', '3.16.0': 'b8095' });
  npm.deprecate('3.11.0', 'broken build, use 3.12.0');
});

afterEach(async () => {
  await server.close();
  npm.close();
  rmSync(cache, { recursive: true, force: true });
});

describe('llama.cpp releases from the npm registry', () => {
  it('the stable releases from --good to --bad in order, each with its tag and links; a JavaScript-only, a deprecated and a pre-release left out', async () => {
    const list = await npmReleases('3.8.1', '3.16.0', await sources());
    expect(list.releases.map((r) => [r.version, r.tag])).toEqual([['3.8.1', 'b5415'], ['3.9.0', 'b5500'], ['3.10.0', 'b5600'], ['3.12.0', 'b6000'], ['3.16.0', 'b8095']]);
    expect(list.releases[1]!.links).toEqual({ upstream: 'https://github.com/ggml-org/llama.cpp/releases/tag/b5500', package: 'https://github.com/withcatai/node-llama-cpp/releases/tag/v3.9.0' });
    expect(list.notes).toEqual(['node-llama-cpp 3.10.1 bundles llama.cpp b5600 as 3.10.0 does: the same engine build, left out']);
    // The ends' tags are known in the checkout (fleet/releases.json): no tarball is fetched for them.
    expect(lookups.sort()).toEqual(['3.10.0', '3.10.1', '3.12.0', '3.9.0']);
    expect(compareLink(list.releases[2]!, list.releases[3]!)).toBe('https://github.com/ggml-org/llama.cpp/compare/b5600...b6000');
  });

  it('--good and --bad as llama.cpp tags: mapped to the release that bundles each, said in the notes', async () => {
    const list = await npmReleases('b5415', 'b8095', await sources());
    expect(list.releases.map((r) => r.version)).toEqual(['3.8.1', '3.9.0', '3.10.0', '3.12.0', '3.16.0']);
    expect(list.notes.slice(0, 2)).toEqual(['--good b5415: llama.cpp b5415, bundled by node-llama-cpp 3.8.1', '--bad b8095: llama.cpp b8095, bundled by node-llama-cpp 3.16.0']);
  });

  it('a tag known nowhere here is found in the tarballs; one bundled twice names both and takes the first', async () => {
    const list = await npmReleases('b5600', '3.12.0', await sources());
    expect(list.releases.map((r) => r.version)).toEqual(['3.10.0', '3.12.0']);
    expect(list.notes[0]).toBe('--good b5600: llama.cpp b5600, bundled by node-llama-cpp 3.10.0');
  });

  it('a build commit from the build cache is resolved as run --engine-version resolves it', async () => {
    const commit = 'ab12cd34'.padEnd(40, '0');
    mkdirSync(join(cache, 'llama.cpp', commit), { recursive: true });
    // Synthetic: a cache entry as `servebench llamacpp build` writes it.
    writeFileSync(join(cache, 'llama.cpp', commit, 'build.json'), JSON.stringify({ tag: 'b5500', commit, node_llama_cpp: '3.9.0', targets: [], cmake_flags: [], built_at: '2026-12-01T00:00:00Z', build_seconds: 1, jobs: 1 }));
    const list = await npmReleases('ab12cd34', '3.10.0', await sources());
    expect(list.releases.map((r) => [r.version, r.tag])).toEqual([['3.9.0', 'b5500'], ['3.10.0', 'b5600']]);
    expect(lookups).toEqual(['3.10.0']);
  });

  it('refuses, naming the option and the fix: an unknown tag, a version not listed, the ends swapped, one build at both ends', async () => {
    const s = await sources();
    await expect(npmReleases('3.8.1', 'b9999', s)).rejects.toThrow(/--bad b9999: no stable node-llama-cpp release on the registry bundles llama.cpp b9999/);
    await expect(npmReleases('3.11.0', '3.16.0', s)).rejects.toThrow(/--good 3.11.0: not a stable node-llama-cpp release on the npm registry/);
    await expect(npmReleases('3.16.0', '3.8.1', s)).rejects.toThrow(/--good 3.16.0 is not older than --bad 3.8.1.*--good is the older release/);
    await expect(npmReleases('3.10.0', '3.10.1', s)).rejects.toThrow(/same llama.cpp build \(llama.cpp b5600\): nothing to bisect/);
  });
});

describe('releases listed with --releases', () => {
  it('ordered as detect orders versions, with --good and --bad added, what lies outside them left out', () => {
    const list = explicitReleases(['1.10.0', '1.9.0', '2.0.0', '1.9.0', '0.9.0'], '1.8.0', '1.11.0');
    expect(list.releases.map((r) => r.version)).toEqual(['1.8.0', '1.9.0', '1.10.0', '1.11.0']);
    expect(list.releases[0]).toEqual({ version: '1.8.0', tag: null, links: { upstream: null, package: null } });
    expect(() => explicitReleases([], '1.2.0', '1.1.0')).toThrow(/--good 1.2.0 is not older than --bad 1.1.0/);
  });

  it('no compare link between releases that are not llama.cpp tags', () => {
    const [a, b] = explicitReleases([], '1.0.0', '1.1.0').releases;
    expect(compareLink(a!, b!)).toBeNull();
  });
});
