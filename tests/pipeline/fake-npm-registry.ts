/**
 * A loopback npm registry for node-llama-cpp, faithful to what registry.npmjs.org answers (a
 * recorded packument, trimmed to a few versions: tests/pipeline/fixtures/node-llama-cpp.packument.json),
 * serving real tarballs that `npm pack` downloads and checks (sha512 integrity, sha1 shasum): each
 * holds what servebench reads of a node-llama-cpp release, package/package.json,
 * package/llama/llama.cpp.info.json (the llama.cpp tag) and package/llama/gitRelease.bundle (a real
 * one-commit git bundle, tiny, not llama.cpp's source). ETags and 304s as the registry's CDN sends
 * them. Point npm and detect at it with npm_config_registry=<url>.
 * (A test helper; tests/kit/nightly-dry-run.ts uses it too. Its place is tests/kit/fakes/.)
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeHandler } from '../kit/fakes/fake-server.ts';

export const RECORDED_PACKUMENT = fileURLToPath(new URL('./fixtures/node-llama-cpp.packument.json', import.meta.url));
/** What the recorded versions' tarballs bundle (read from the real tarballs: llama/llama.cpp.info.json). */
export const RECORDED_TAGS: Readonly<Record<string, string>> = { '3.6.0': 'b4753', '3.8.1': 'b5415', '3.21.1': 'v0.4.0' };

interface Manifest {
  name: string;
  version: string;
  dist: { tarball: string; shasum: string; integrity: string };
  deprecated?: string;
  [key: string]: unknown;
}
interface Packument {
  name: string;
  'dist-tags': Record<string, string>;
  versions: Record<string, Manifest>;
  time: Record<string, string>;
  [key: string]: unknown;
}

export interface FakeNpmRegistry {
  readonly handler: FakeHandler;
  /** Publishes a version whose tarball bundles llama.cpp `tag` (replacing a recorded one of that version). */
  publish(version: string, tag: string, publishedAt?: string): void;
  deprecate(version: string, message: string): void;
  /** Every recorded version gets a real tarball bundling its recorded tag. */
  tarballsForRecorded(): void;
  /** Paths asked for, with the status answered. */
  readonly answered: Array<{ path: string; status: number }>;
  close(): void;
}

/** `url`: where the fake is served (tarball URLs point there). */
export function fakeNpmRegistry(url: () => string, options: { recorded?: boolean } = {}): FakeNpmRegistry {
  const work = mkdtempSync(join(tmpdir(), 'servebench-fake-npm-'));
  const packument: Packument = options.recorded === false
    ? { name: 'node-llama-cpp', 'dist-tags': {}, versions: {}, time: {} }
    : (JSON.parse(readFileSync(RECORDED_PACKUMENT, 'utf8')) as Packument);
  const tarballs = new Map<string, Buffer>();
  const answered: FakeNpmRegistry['answered'] = [];
  let revision = 0;

  const makeTarball = (version: string, tag: string): Buffer => {
    const dir = join(work, version);
    rmSync(dir, { recursive: true, force: true });
    const repo = join(dir, 'repo');
    mkdirSync(repo, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=fake', '-c', 'user.email=fake@example.invalid', '-c', 'init.defaultBranch=master', ...args], { cwd: repo, stdio: 'pipe' });
    git('init', '-q');
    writeFileSync(join(repo, 'README.md'), `llama.cpp ${tag} (a stand-in tree)\n`);
    git('add', 'README.md');
    git('commit', '-q', '-m', `llama.cpp ${tag}`);
    const llama = join(dir, 'package', 'llama');
    mkdirSync(llama, { recursive: true });
    git('bundle', 'create', '-q', join(llama, 'gitRelease.bundle'), 'HEAD');
    writeFileSync(join(llama, 'llama.cpp.info.json'), `${JSON.stringify({ tag, llamaCppGithubRepo: 'ggml-org/llama.cpp' }, null, 4)}\n`);
    writeFileSync(join(dir, 'package', 'package.json'), `${JSON.stringify({ name: 'node-llama-cpp', version, type: 'module' }, null, 2)}\n`);
    const file = join(dir, `node-llama-cpp-${version}.tgz`);
    execFileSync('tar', ['-czf', file, '-C', dir, 'package']);
    return readFileSync(file);
  };

  const publish = (version: string, tag: string, publishedAt = new Date().toISOString()): void => {
    const tarball = makeTarball(version, tag);
    tarballs.set(version, tarball);
    packument.versions[version] = {
      ...(packument.versions[version] ?? { name: 'node-llama-cpp', version }),
      dist: {
        tarball: `${url()}/node-llama-cpp/-/node-llama-cpp-${version}.tgz`,
        shasum: createHash('sha1').update(tarball).digest('hex'),
        integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
      },
    };
    packument.time[version] ??= publishedAt;
    packument['dist-tags']['latest'] = version;
    revision += 1;
  };

  const handler: FakeHandler = (request, response) => {
    const path = new URL(request.url, 'http://x').pathname;
    const answer = (status: number, body: Buffer | string, headers: Record<string, string> = {}) => {
      answered.push({ path, status });
      response.writeHead(status, headers);
      response.end(body);
      return true;
    };
    if (path === '/node-llama-cpp') {
      const etag = `W/"${revision}-${Object.keys(packument.versions).length}"`;
      if (request.headers['if-none-match'] === etag) return answer(304, '', { etag });
      return answer(200, JSON.stringify(packument), { 'content-type': 'application/json', etag });
    }
    const m = /^\/node-llama-cpp\/-\/node-llama-cpp-(.+)\.tgz$/.exec(path);
    if (m) {
      const tarball = tarballs.get(m[1]!);
      return tarball ? answer(200, tarball, { 'content-type': 'application/octet-stream' }) : answer(404, JSON.stringify({ error: 'Not found' }), { 'content-type': 'application/json' });
    }
    if (path.startsWith('/-/') || path.startsWith('/node-llama-cpp')) return answer(404, JSON.stringify({ error: 'Not found' }), { 'content-type': 'application/json' });
    return false;
  };

  return {
    handler,
    publish,
    deprecate(version, message) {
      packument.versions[version]!.deprecated = message;
      revision += 1;
    },
    tarballsForRecorded() {
      for (const [version, tag] of Object.entries(RECORDED_TAGS)) publish(version, tag);
    },
    answered,
    close: () => rmSync(work, { recursive: true, force: true }),
  };
}
