/**
 * `servebench detect` against a fake GitHub API and fake registries (Docker Hub's API, and OCI
 * registries with the bearer-token flow of ghcr.io and nvcr.io) on 127.0.0.1, with the real
 * engine specs. Waits and backoff run on a virtual clock, so rate limits cost no real time.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatHelp } from '../../harness/lib/cli/options.ts';
import { detectCommand, runDetect } from '../../harness/pipeline/detect/command.ts';
import type { DetectReport } from '../../harness/pipeline/detect/detect.ts';
import type { DetectState } from '../../harness/pipeline/detect/state.ts';
import { expandPlan } from '../../harness/pipeline/plan/plan.ts';
import { loadFleet } from '../../harness/pipeline/plan/inputs.ts';
import { parseLinkHeader } from '../../harness/pipeline/http/github-http.ts';
import { compareVersions, looksLikePrerelease, tagVersion, versionFromTag } from '../../harness/pipeline/http/github-releases.ts';
import { rateLimitWaitS } from '../../harness/pipeline/http/http-conditional.ts';
import { imageRef, parseRegistryOverrides, parseWwwAuthenticate } from '../../harness/pipeline/http/registry-tags.ts';
import { ServebenchError } from '../../harness/lib/errors.ts';
import { fakeGithub, type FakeGithub } from '../kit/fakes/fake-github-releases.ts';
import { fakeDockerHub, fakeOciRegistry, type FakeDockerHub, type FakeOciRegistry } from '../kit/fakes/fake-registries.ts';
import { startFakeServer, type FakeServer, type RecordedRequest } from '../kit/fakes/fake-server.ts';
import { fakeNpmRegistry, type FakeNpmRegistry } from './fake-npm-registry.ts';

const START = Date.parse('2026-10-01T06:00:00Z');

interface RunOutcome {
  readonly code: number;
  readonly report: DetectReport;
  readonly stderr: string;
  readonly state: DetectState;
}

let server: FakeServer;
let github: FakeGithub;
let hub: FakeDockerHub;
let npm: FakeNpmRegistry;
let ghcr: FakeOciRegistry;
let nvcr: FakeOciRegistry;
let clock: { ms: number };
let sleeps: number[];
let answers: Array<{ method: string; url: string; status: number }>;
let dir: string;
let stateFile: string;
/** The shipped fleet without its engines' images: the tests that are not about them check official images only. */
let officialOnlyFleet: string;

beforeEach(async () => {
  clock = { ms: START };
  sleeps = [];
  answers = [];
  github = fakeGithub({ now: () => clock.ms });
  hub = fakeDockerHub();
  ghcr = fakeOciRegistry({ prefix: '/ghcr', service: 'ghcr.io', realmPath: '/token' });
  nvcr = fakeOciRegistry({ prefix: '/nvcr', service: null, realmPath: '/proxy_auth' });
  npm = fakeNpmRegistry(() => server.url);
  server = await startFakeServer([
    (request, response) => {
      response.on('finish', () => answers.push({ method: request.method, url: request.url, status: response.statusCode }));
      return false;
    },
    github.handler,
    hub.handler,
    ghcr.handler,
    nvcr.handler,
    npm.handler,
  ]);
  dir = mkdtempSync(join(tmpdir(), 'servebench-detect-'));
  stateFile = join(dir, 'fleet', 'detect-state.json');
  const fleet = parseYaml(readFileSync('fleet/fleet.yaml', 'utf8')) as Record<string, unknown>;
  delete fleet['engines'];
  officialOnlyFleet = join(dir, 'official-only-fleet.yaml');
  writeFileSync(officialOnlyFleet, toYaml(fleet));
});

afterEach(async () => {
  await server.close();
  npm.close();
  rmSync(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

function fakeFlags(): string[] {
  return ['--github-api', server.url, '--registry-url', `docker.io=${server.url}`, '--registry-url', `ghcr.io=${server.url}/ghcr`, '--registry-url', `nvcr.io=${server.url}/nvcr`];
}

async function detectRun(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<RunOutcome> {
  let stdout = '';
  let stderr = '';
  const fleet = args.includes('--fleet') ? [] : ['--fleet', officialOnlyFleet];
  const code = await runDetect([...args, ...fleet, '--state', stateFile, ...fakeFlags()], {
    env,
    policy: {
      now: () => clock.ms,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.ms += ms;
      },
      backoffMs: 1,
    },
    now: () => new Date(clock.ms),
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  });
  const state = existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as DetectState) : { schema_version: 1 as const, engines: {} };
  return { code, report: JSON.parse(stdout) as DetectReport, stderr, state };
}

function requestsTo(path: string): RecordedRequest[] {
  return server.requests.filter((request) => new URL(request.url, 'http://x').pathname === path);
}

function answered(path: string): number[] {
  return answers.filter((answer) => new URL(answer.url, 'http://x').pathname === path).map((answer) => answer.status);
}

describe('servebench detect', () => {
  it('reports a new version once, then nothing: the repeat is a conditional request answered 304', async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.10.0', published_at: '2026-08-01T00:00:00Z' });
    github.publish('vllm-project/vllm', { tag_name: 'v0.10.1', published_at: '2026-09-01T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.10.0');
    hub.push('vllm/vllm-openai', 'v0.10.1');
    await detectRun(['--engine', 'vllm']);

    github.publish('vllm-project/vllm', { tag_name: 'v0.11.0', published_at: '2026-09-30T12:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.11.0');
    const second = await detectRun(['--engine', 'vllm']);
    expect(second.code).toBe(0);
    expect(second.report).toEqual({
      checked_at: '2026-10-01T06:00:00.000Z',
      new: [{ engine: 'vllm', version: '0.11.0', tag: 'v0.11.0', release_url: 'https://github.com/vllm-project/vllm/releases/tag/v0.11.0', published_at: '2026-09-30T12:00:00Z', image: 'vllm/vllm-openai:v0.11.0', images: [] }],
      pending: [],
      awaiting_images: [],
      errors: [],
      notes: [],
    });
    expect(second.state.engines['vllm']!.seen).toEqual({ '0.10.0': '2026-10-01', '0.10.1': '2026-10-01', '0.11.0': '2026-10-01' });
    expect(second.stderr).toMatch(/new {6}vllm 0\.11\.0 {2}vllm\/vllm-openai:v0\.11\.0/);

    const third = await detectRun(['--engine', 'vllm']);
    expect([third.code, third.report.new, third.report.pending, third.report.errors]).toEqual([0, [], [], []]);
    const releases = requestsTo('/repos/vllm-project/vllm/releases');
    expect(releases).toHaveLength(3);
    // GitHub's documented headers on every call; no token when GITHUB_TOKEN is unset.
    expect(releases[0]!.headers).toMatchObject({ accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': expect.stringMatching(/^servebench\//) });
    expect(releases[0]!.headers['authorization']).toBeUndefined();
    expect(releases[0]!.headers['if-none-match']).toBeUndefined();
    expect(releases[2]!.headers['if-none-match']).toBe(second.state.engines['vllm']!.etags['/repos/vllm-project/vllm/releases?per_page=100']);
    expect(answered('/repos/vllm-project/vllm/releases')).toEqual([200, 200, 304]);
    // Nothing new: no registry was asked on the repeat.
    expect(requestsTo('/v2/namespaces/vllm/repositories/vllm-openai/tags/v0.11.0')).toHaveLength(1);
  });

  it("first sighting reports only the newest release (image found through GHCR's anonymous bearer flow); other products' tags are skipped", async () => {
    for (let build = 6120; build <= 6125; build++) github.publish('ggml-org/llama.cpp', { tag_name: `b${build}`, published_at: `2026-09-30T0${build - 6120}:00:00Z` });
    github.publish('ggml-org/llama.cpp', { tag_name: 'gguf-v0.17.1', published_at: '2026-09-30T23:00:00Z' });
    ghcr.push('ggml-org/llama.cpp', 'server-cuda-b6125');
    // The shipped spec reads llama.cpp's releases from npm (detect-npm.test.ts); this copy polls GitHub, the GHCR image engine.
    const enginesDir = join(dir, 'engines');
    mkdirSync(enginesDir);
    writeFileSync(join(enginesDir, 'llamacpp.yaml'), readFileSync('engines/llamacpp.yaml', 'utf8').replace(/^  npm: node-llama-cpp\n/m, ''));
    const run = await detectRun(['--engine', 'llamacpp', '--engines-dir', enginesDir]);
    expect(run.code).toBe(0);
    expect(run.report.new).toEqual([
      { engine: 'llamacpp', version: '6125', tag: 'b6125', release_url: 'https://github.com/ggml-org/llama.cpp/releases/tag/b6125', published_at: '2026-09-30T05:00:00Z', image: 'ghcr.io/ggml-org/llama.cpp:server-cuda-b6125', images: [] },
    ]);
    expect(Object.keys(run.state.engines['llamacpp']!.seen)).toEqual(['6120', '6121', '6122', '6123', '6124', '6125']);

    const manifest = '/ghcr/v2/ggml-org/llama.cpp/manifests/server-cuda-b6125';
    expect(answers.filter((a) => a.url.startsWith('/ghcr')).map((a) => `${a.method} ${a.url} ${a.status}`)).toEqual([
      `HEAD ${manifest} 401`,
      'GET /ghcr/token?service=ghcr.io&scope=repository%3Aggml-org%2Fllama.cpp%3Apull 200',
      `HEAD ${manifest} 200`,
    ]);
    const [, authorized] = requestsTo(manifest);
    expect(authorized!.headers['authorization']).toMatch(/^Bearer [0-9a-f]+$/);
    expect(authorized!.headers['accept']).toContain('application/vnd.oci.image.index.v1+json');
  });

  it('skips drafts and prereleases (unless --include-prereleases); nvcr.io tokens come from a challenge without service; the token goes to GitHub only', async () => {
    github.publish('NVIDIA/TensorRT-LLM', { tag_name: 'v1.0.0', published_at: '2026-09-01T00:00:00Z' });
    nvcr.push('nvidia/tensorrt-llm/release', '1.0.0');
    const first = await detectRun(['--engine', 'trtllm']);
    expect(first.report.new.map((v) => [v.version, v.image])).toEqual([['1.0.0', 'nvcr.io/nvidia/tensorrt-llm/release:1.0.0']]);
    expect(answers.filter((a) => a.url.startsWith('/nvcr/proxy_auth')).map((a) => [a.url, a.status])).toEqual([['/nvcr/proxy_auth?scope=repository%3Anvidia%2Ftensorrt-llm%2Frelease%3Apull', 200]]);

    github.publish('NVIDIA/TensorRT-LLM', { tag_name: 'v1.1.0rc1', prerelease: true, published_at: '2026-09-20T00:00:00Z' });
    github.publish('NVIDIA/TensorRT-LLM', { tag_name: 'v1.1.0', draft: true, published_at: '2026-09-25T00:00:00Z' });
    nvcr.push('nvidia/tensorrt-llm/release', '1.1.0rc1');
    nvcr.push('nvidia/tensorrt-llm/release', '1.1.0');
    const token = { GITHUB_TOKEN: 'ghp_test_token' };
    const second = await detectRun(['--engine', 'trtllm'], token);
    expect([second.code, second.report.new, second.report.pending]).toEqual([0, [], []]);
    const listed = requestsTo('/repos/NVIDIA/TensorRT-LLM/releases').at(-1)!;
    expect(listed.headers['authorization']).toBe('Bearer ghp_test_token');
    expect(server.requests.filter((r) => !r.url.startsWith('/repos/') && r.headers['authorization'] === 'Bearer ghp_test_token')).toEqual([]);

    const third = await detectRun(['--engine', 'trtllm', '--include-prereleases'], token);
    expect(third.report.new.map((v) => v.version)).toEqual(['1.1.0rc1']);
    expect(Object.keys(third.state.engines['trtllm']!.seen)).toEqual(['1.0.0', '1.1.0rc1']);
  });

  it('follows Link pagination, and stops at the first page that holds a known release', async () => {
    const publishRange = (from: number, to: number) => {
      for (let i = from; i <= to; i++) github.publish('mlc-ai/mlc-llm', { tag_name: `v0.0.${i}`, published_at: new Date(START - (1000 - i) * 60_000).toISOString() });
    };
    publishRange(1, 250);
    const first = await detectRun(['--engine', 'mlc']);
    expect(first.report.new.map((v) => [v.version, v.image])).toEqual([['0.0.250', null]]);
    expect(Object.keys(first.state.engines['mlc']!.seen)).toHaveLength(100);
    expect(requestsTo('/repos/mlc-ai/mlc-llm/releases')).toHaveLength(1);

    publishRange(251, 400);
    const second = await detectRun(['--engine', 'mlc']);
    expect(second.code).toBe(0);
    expect(second.report.new).toHaveLength(150);
    expect(second.report.new[0]!.version).toBe('0.0.251');
    expect(second.report.new.at(-1)!.version).toBe('0.0.400');
    const listing = answers.filter((a) => /releases/.test(a.url)).slice(1);
    expect(listing.map((a) => [a.url.replace(/\/repositories\/\d+\//, '/repositories/ID/'), a.status])).toEqual([
      ['/repos/mlc-ai/mlc-llm/releases?per_page=100', 200],
      ['/repositories/ID/releases?per_page=100&page=2', 200],
    ]);
  });

  it('sits out a rate limit that resets soon (x-ratelimit-reset, retry-after); fails clearly, naming the reset, when it is far', async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.11.0', published_at: '2026-09-30T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.11.0');
    github.rateLimit.remaining = 0;
    github.rateLimit.reset = Math.floor(clock.ms / 1000) + 5;
    github.inject({ status: 403, headers: { 'retry-after': '2' }, body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' } }, 1);
    const near = await detectRun(['--engine', 'vllm']);
    expect([near.code, near.report.new.map((v) => v.version)]).toEqual([0, ['0.11.0']]);
    expect(answered('/repos/vllm-project/vllm/releases')).toEqual([403, 403, 200]);
    // retry-after 2 s, then the primary limit's reset (3 s later), each + 1 s margin.
    expect(sleeps).toEqual([3000, 3000]);

    github.publish('vllm-project/vllm', { tag_name: 'v0.11.1', published_at: '2026-10-01T00:00:00Z' });
    github.publish('sgl-project/sglang', { tag_name: 'v0.5.3', published_at: '2026-09-30T00:00:00Z' });
    github.rateLimit.remaining = 0;
    github.rateLimit.reset = Math.floor(clock.ms / 1000) + 3600;
    const resetAt = new Date(github.rateLimit.reset * 1000).toISOString();
    const before = server.requests.length;
    const far = await detectRun(['--engine', 'vllm', '--engine', 'sglang']);
    expect(far.code).toBe(1);
    expect(far.report.new).toEqual([]);
    expect(far.report.errors[0]!.engine).toBe('vllm');
    expect(far.report.errors[0]!.message).toContain(`rate limit exceeded (0 of 60 requests left): it resets at ${resetAt} (in 60 min), longer than --max-wait 60 s; set GITHUB_TOKEN`);
    expect(far.report.errors[1]).toEqual({ engine: 'sglang', message: `not polled: ${far.report.errors[0]!.message}` });
    // One request found the limit; sglang was not even tried.
    expect(server.requests.length - before).toBe(1);
    expect(far.state.engines['vllm']!.seen).toEqual({ '0.11.0': '2026-10-01' });
    expect(far.stderr).toContain('error    vllm: ');
  });

  it('reports a version whose image is not out yet as pending, re-checks it even on a 304, and reports it new once the tag appears', async () => {
    github.publish('sgl-project/sglang', { tag_name: 'v0.5.3', published_at: '2026-09-20T00:00:00Z' });
    hub.push('lmsysorg/sglang', 'v0.5.3');
    await detectRun(['--engine', 'sglang']);

    github.publish('sgl-project/sglang', { tag_name: 'v0.5.4', published_at: '2026-09-30T00:00:00Z' });
    const waiting = await detectRun(['--engine', 'sglang']);
    expect(waiting.code).toBe(0);
    expect(waiting.report.new).toEqual([]);
    expect(waiting.report.pending).toEqual([
      {
        engine: 'sglang', version: '0.5.4', tag: 'v0.5.4', release_url: 'https://github.com/sgl-project/sglang/releases/tag/v0.5.4', published_at: '2026-09-30T00:00:00Z',
        image: 'lmsysorg/sglang:v0.5.4', images: [], reason: 'image lmsysorg/sglang:v0.5.4 is not published yet (waiting since 2026-10-01)',
      },
    ]);
    expect(waiting.state.engines['sglang']!.seen).not.toHaveProperty('0.5.4');
    expect(waiting.state.engines['sglang']!.pending).toEqual({ '0.5.4': { tag: 'v0.5.4', release_url: 'https://github.com/sgl-project/sglang/releases/tag/v0.5.4', published_at: '2026-09-30T00:00:00Z', since: '2026-10-01' } });

    clock.ms += 86_400_000;
    const still = await detectRun(['--engine', 'sglang']);
    expect(still.report.pending.map((v) => v.reason)).toEqual(['image lmsysorg/sglang:v0.5.4 is not published yet (waiting since 2026-10-01)']);

    hub.push('lmsysorg/sglang', 'v0.5.4');
    const out = await detectRun(['--engine', 'sglang']);
    expect(out.report.new.map((v) => [v.version, v.image])).toEqual([['0.5.4', 'lmsysorg/sglang:v0.5.4']]);
    expect(out.report.pending).toEqual([]);
    expect(out.state.engines['sglang']!.pending).toEqual({});
    expect(out.state.engines['sglang']!.seen['0.5.4']).toBe('2026-10-02');
    expect(answered('/repos/sgl-project/sglang/releases')).toEqual([200, 200, 304, 304]);
    expect(answered('/v2/namespaces/lmsysorg/repositories/sglang/tags/v0.5.4')).toEqual([404, 404, 200]);

    const after = await detectRun(['--engine', 'sglang']);
    expect([after.report.new, after.report.pending]).toEqual([[], []]);
  });

  it("one engine's 5xx (after retries with backoff) does not stop the others; the exit status is 1 and its state is kept", async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.11.0', published_at: '2026-09-30T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.11.0');
    github.publish('NVIDIA/TensorRT-LLM', { tag_name: 'v1.0.0', published_at: '2026-09-01T00:00:00Z' });
    github.inject({ status: 500, body: { message: 'Server Error' } }, 4, '/repos/NVIDIA/TensorRT-LLM/');
    const run = await detectRun(['--engine', 'trtllm', '--engine', 'vllm']);
    expect(run.code).toBe(1);
    expect(run.report.errors).toEqual([{ engine: 'trtllm', message: expect.stringMatching(/releases\?per_page=100 answered 500 \(Server Error\) after 4 attempts$/) }]);
    expect(run.report.new.map((v) => `${v.engine} ${v.version}`)).toEqual(['vllm 0.11.0']);
    expect(answered('/repos/NVIDIA/TensorRT-LLM/releases')).toEqual([500, 500, 500, 500]);
    expect(sleeps).toEqual([1, 2, 4]);
    expect(Object.keys(run.state.engines)).toEqual(['vllm']);

    // A transient 502 is retried and goes unnoticed.
    github.inject({ status: 502, body: { message: 'Server Error' } }, 1, '/repos/NVIDIA/TensorRT-LLM/');
    nvcr.push('nvidia/tensorrt-llm/release', '1.0.0');
    const again = await detectRun(['--engine', 'trtllm', '--engine', 'vllm']);
    expect([again.code, again.report.new.map((v) => `${v.engine} ${v.version}`)]).toEqual([0, ['trtllm 1.0.0']]);
  });

  it('reads a repository without releases by its tags, conditionally too', async () => {
    github.repo('withcatai/node-llama-cpp');
    github.tag('withcatai/node-llama-cpp', 'v3.20.0');
    github.tag('withcatai/node-llama-cpp', 'v3.21.0');
    const first = await detectRun(['--engine', 'embedded']);
    expect(first.report.new).toEqual([{ engine: 'embedded', version: '3.21.0', tag: 'v3.21.0', release_url: 'https://github.com/withcatai/node-llama-cpp/releases/tag/v3.21.0', published_at: null, image: null, images: [] }]);
    expect(first.state.engines['embedded']!.source).toBe('tags');

    github.tag('withcatai/node-llama-cpp', 'v3.22.0-beta.1');
    github.tag('withcatai/node-llama-cpp', 'v3.22.0');
    const second = await detectRun(['--engine', 'embedded']);
    expect(second.report.new.map((v) => v.version)).toEqual(['3.22.0']);
    const third = await detectRun(['--engine', 'embedded']);
    expect(third.report.new).toEqual([]);
    expect(answered('/repos/withcatai/node-llama-cpp/releases')).toEqual([200, 304, 304]);
    expect(answered('/repos/withcatai/node-llama-cpp/tags')).toEqual([200, 200, 304]);
  });
});

describe('servebench detect: versions the fleet cannot use, tag order, redirects, waits', () => {
  it('skips a tag whose version the fleet cannot plan (note), and records a version whose image tag cannot exist as seen (note), not pending', async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.10.0', published_at: '2026-08-01T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.10.0');
    await detectRun(['--engine', 'vllm']);

    const long = `v0.11.1-${'x'.repeat(60)}`;
    github.publish('vllm-project/vllm', { tag_name: 'v0.11.0+cu126', published_at: '2026-09-01T00:00:00Z' });
    github.publish('vllm-project/vllm', { tag_name: long, published_at: '2026-09-02T00:00:00Z' });
    const run = await detectRun(['--engine', 'vllm']);
    expect([run.code, run.report.new, run.report.pending, run.report.errors]).toEqual([0, [], [], []]);
    expect(run.report.notes).toEqual([
      { engine: 'vllm', message: expect.stringMatching(/^tag "v0\.11\.1-x+" skipped: its version is not a release name .*at most 64/) },
      { engine: 'vllm', message: expect.stringMatching(/^0\.11\.0\+cu126 \(tag v0\.11\.0\+cu126\) recorded as seen, not reported: its image tag cannot exist \("v0\.11\.0\+cu126" is not a valid image tag\)/) },
    ]);
    expect(run.state.engines['vllm']!.seen).toEqual({ '0.10.0': '2026-10-01', '0.11.0+cu126': '2026-10-01' });
    expect(run.state.engines['vllm']!.pending).toEqual({});
    expect(run.stderr).toContain('0 new, 0 pending, 0 errors, 2 notes');
    expect(run.stderr).toContain('  note     vllm: 0.11.0+cu126 (tag v0.11.0+cu126) recorded as seen');
    // No registry was asked for an image that cannot exist.
    expect(server.requests.filter((r) => r.url.includes('cu126'))).toEqual([]);

    const again = await detectRun(['--engine', 'vllm']);
    expect([again.code, again.report.new, again.report.pending, again.report.errors, again.report.notes]).toEqual([0, [], [], [], []]);
  });

  it('a version left pending by an older detect whose image tag cannot exist is settled as seen, not re-checked every night', async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.11.0+cu126', published_at: '2026-09-01T00:00:00Z' });
    mkdirSync(join(dir, 'fleet'), { recursive: true });
    const pending = { tag: 'v0.11.0+cu126', release_url: 'https://github.com/vllm-project/vllm/releases/tag/v0.11.0+cu126', published_at: '2026-09-01T00:00:00Z', since: '2026-09-01' };
    writeFileSync(stateFile, JSON.stringify({ schema_version: 1, engines: { vllm: { source: 'releases', etags: {}, seen: {}, pending: { '0.11.0+cu126': pending } } } }));
    const run = await detectRun(['--engine', 'vllm']);
    expect([run.code, run.report.pending, run.report.errors]).toEqual([0, [], []]);
    expect(run.report.notes.map((n) => n.message)).toEqual([expect.stringContaining('0.11.0+cu126 (tag v0.11.0+cu126) recorded as seen')]);
    expect(run.state.engines['vllm']!.pending).toEqual({});
    expect(run.state.engines['vllm']!.seen).toEqual({ '0.11.0+cu126': '2026-10-01' });
  });

  it('reads every page of tags (GitHub lists them by name): a new tag that sorts onto page 2 is found, page 1 costing a 304', async () => {
    github.repo('withcatai/node-llama-cpp');
    const names = Array.from({ length: 150 }, (_, i) => `v2.0.${i}`);
    for (const name of names) github.tag('withcatai/node-llama-cpp', name);
    const first = await detectRun(['--engine', 'embedded']);
    // Newest by version, whichever page it is on; every page's tags recorded.
    expect(first.report.new.map((v) => v.version)).toEqual(['2.0.149']);
    expect(Object.keys(first.state.engines['embedded']!.seen)).toHaveLength(150);

    // "v10.0.0" sorts after every "v2.…" by name: the last item, on page 2, though it is the newest version.
    expect([...names, 'v10.0.0'].sort().reverse().indexOf('v10.0.0')).toBeGreaterThanOrEqual(100);
    github.tag('withcatai/node-llama-cpp', 'v10.0.0');
    const second = await detectRun(['--engine', 'embedded']);
    expect([second.code, second.report.new.map((v) => v.version)]).toEqual([0, ['10.0.0']]);
    const third = await detectRun(['--engine', 'embedded']);
    expect([third.code, third.report.new]).toEqual([0, []]);

    const tagAnswers = answers.filter((a) => a.url.includes('/tags')).map((a) => `${a.url} ${a.status}`);
    expect(tagAnswers).toEqual([
      '/repos/withcatai/node-llama-cpp/tags?per_page=100 200',
      '/repos/withcatai/node-llama-cpp/tags?per_page=100&page=2 200',
      '/repos/withcatai/node-llama-cpp/tags?per_page=100 304',
      '/repos/withcatai/node-llama-cpp/tags?per_page=100&page=2 200',
      '/repos/withcatai/node-llama-cpp/tags?per_page=100 304',
      '/repos/withcatai/node-llama-cpp/tags?per_page=100&page=2 304',
    ]);
    expect(Object.keys(third.state.engines['embedded']!.etags).sort()).toEqual([
      '/repos/withcatai/node-llama-cpp/releases?per_page=100',
      '/repos/withcatai/node-llama-cpp/tags?per_page=100',
      '/repos/withcatai/node-llama-cpp/tags?per_page=100&page=2',
    ]);
  });

  it('a full last page of tags is followed by one probe, so a tag that sorts onto a new page is not missed', async () => {
    github.repo('withcatai/node-llama-cpp');
    for (let i = 0; i < 100; i++) github.tag('withcatai/node-llama-cpp', `v3.0.${i}`);
    await detectRun(['--engine', 'embedded']);
    github.tag('withcatai/node-llama-cpp', 'v10.0.0');
    const second = await detectRun(['--engine', 'embedded']);
    expect(second.report.new.map((v) => v.version)).toEqual(['10.0.0']);
    expect(answered('/repos/withcatai/node-llama-cpp/tags')).toEqual([200, 200, 304, 200]);
  });

  it('follows a moved repository\'s 301 (token kept on the same origin), conditionally; drops the token on a redirect to another origin', async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.11.0', published_at: '2026-09-30T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.11.0');
    github.move('vllm-project/vllm', 'vllm-org/vllm');
    const token = { GITHUB_TOKEN: 'ghp_test_token' };
    const first = await detectRun(['--engine', 'vllm'], token);
    expect([first.code, first.report.errors, first.report.new.map((v) => v.version)]).toEqual([0, [], ['0.11.0']]);
    const second = await detectRun(['--engine', 'vllm'], token);
    expect([second.code, second.report.errors, second.report.new]).toEqual([0, [], []]);
    const listing = answers.filter((a) => a.url.includes('/releases')).map((a) => `${a.url.replace(/\/repositories\/\d+\//, '/repositories/ID/')} ${a.status}`);
    expect(listing).toEqual([
      '/repos/vllm-project/vllm/releases?per_page=100 301',
      '/repositories/ID/releases?per_page=100 200',
      '/repos/vllm-project/vllm/releases?per_page=100 301',
      '/repositories/ID/releases?per_page=100 304',
    ]);
    const followed = server.requests.filter((r) => r.url.startsWith('/repositories/'));
    expect(followed.map((r) => [r.headers['authorization'], r.headers['if-none-match'] !== undefined])).toEqual([
      ['Bearer ghp_test_token', false],
      ['Bearer ghp_test_token', true],
    ]);

    // Another origin (a second loopback server with the same fake GitHub): followed, without the token.
    const other = await startFakeServer([github.handler]);
    try {
      github.publish('sgl-project/sglang', { tag_name: 'v0.5.3', published_at: '2026-09-30T00:00:00Z' });
      hub.push('lmsysorg/sglang', 'v0.5.3');
      const location = `${other.url}/repos/sgl-project/sglang/releases?per_page=100`;
      github.inject({ status: 302, headers: { location }, body: { message: 'Found' } }, 1, '/repos/sgl-project/sglang/releases');
      const moved = await detectRun(['--engine', 'sglang'], token);
      expect([moved.code, moved.report.errors, moved.report.new.map((v) => v.version)]).toEqual([0, [], ['0.5.3']]);
      expect(other.requests.map((r) => [r.url, r.headers['authorization']])).toEqual([['/repos/sgl-project/sglang/releases?per_page=100', undefined]]);
    } finally {
      await other.close();
    }

    // A redirect loop ends after 3 hops, as an error for that engine only.
    github.publish('mlc-ai/mlc-llm', { tag_name: 'v0.1.0', published_at: '2026-09-30T00:00:00Z' });
    github.inject({ status: 301, headers: { location: '/repos/mlc-ai/mlc-llm/releases?per_page=100' }, body: { message: 'Moved Permanently' } }, 10, '/repos/mlc-ai/');
    const loop = await detectRun(['--engine', 'mlc'], token);
    expect(loop.code).toBe(1);
    expect(loop.report.errors).toEqual([{ engine: 'mlc', message: expect.stringContaining('more than 3 redirects') }]);
    expect(answered('/repos/mlc-ai/mlc-llm/releases')).toEqual([301, 301, 301, 301]);
  });

  it('send() alone waits out a secondary limit GitHub gives no time for: a minute, doubling, at most 3 waits per request', async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.11.0', published_at: '2026-09-30T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.11.0');
    const secondary = { status: 403, body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' } };
    github.inject(secondary, 1);
    const once = await detectRun(['--engine', 'vllm']);
    expect([once.code, once.report.new.map((v) => v.version)]).toEqual([0, ['0.11.0']]);
    expect(sleeps).toEqual([60_000]);

    sleeps.length = 0;
    github.publish('vllm-project/vllm', { tag_name: 'v0.11.1', published_at: '2026-10-01T00:00:00Z' });
    github.inject(secondary, 10);
    const before = server.requests.length;
    const stuck = await detectRun(['--engine', 'vllm', '--max-wait', '10000']);
    expect(stuck.code).toBe(1);
    expect(sleeps).toEqual([60_000, 120_000, 240_000]);
    expect(server.requests.length - before).toBe(4);
    expect(stuck.report.errors[0]!.message).toContain('still limited after 3 waits');
  });
});

describe("servebench detect: the fleet's own images (ROCm builds)", () => {
  const SHIPPED_FLEET = 'fleet/fleet.yaml';
  const rocm = (version: string, published: boolean) => ({ key: 'amd', gpu_types: ['mi300x-192gb'], image: `vllm/vllm-openai-rocm:v${version}`, published });

  /** `servebench plan --new` of the shipped fleet on detect's report, as the nightly workflow runs it. */
  function planNew(report: DetectReport) {
    const loaded = loadFleet(SHIPPED_FLEET);
    return expandPlan({
      fleet: loaded.fleet, fleetFile: SHIPPED_FLEET, fleetSha256: loaded.sha256, engines: loaded.engines, knownEngines: loaded.knownEngines,
      workloads: loaded.workloads, nightly: false, releases: report.new,
    });
  }

  it('a release whose CUDA image is out but not its ROCm image: new (NVIDIA jobs planned, MI300X skipped), kept pending for the ROCm image, then reported for it alone', async () => {
    github.publish('vllm-project/vllm', { tag_name: 'v0.11.0', published_at: '2026-09-01T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.11.0');
    hub.push('vllm/vllm-openai-rocm', 'v0.11.0');
    const first = await detectRun(['--engine', 'vllm', '--fleet', SHIPPED_FLEET]);
    expect(first.report.new.map((v) => v.images)).toEqual([[rocm('0.11.0', true)]]);
    expect([first.report.awaiting_images, first.state.engines['vllm']!.pending]).toEqual([[], {}]);

    github.publish('vllm-project/vllm', { tag_name: 'v0.12.0', published_at: '2026-09-30T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.12.0');
    const second = await detectRun(['--engine', 'vllm', '--fleet', SHIPPED_FLEET]);
    expect(second.code).toBe(0);
    const release = { engine: 'vllm', version: '0.12.0', tag: 'v0.12.0', release_url: 'https://github.com/vllm-project/vllm/releases/tag/v0.12.0', published_at: '2026-09-30T00:00:00Z' };
    expect(second.report.new).toEqual([{ ...release, image: 'vllm/vllm-openai:v0.12.0', images: [rocm('0.12.0', false)] }]);
    expect(second.report.pending).toEqual([]);
    expect(second.report.awaiting_images).toEqual([
      {
        ...release, image: 'vllm/vllm-openai:v0.12.0', images: [rocm('0.12.0', false)], pending_images: ['vllm/vllm-openai-rocm:v0.12.0'], since: '2026-10-01',
        reason: 'reported new for its official image; waiting for vllm/vllm-openai-rocm:v0.12.0 (since 2026-10-01); their GPU types run once published',
      },
    ]);
    // Reported (seen) and still waiting (pending) for the ROCm image.
    expect(second.state.engines['vllm']!.seen['0.12.0']).toBe('2026-10-01');
    expect(second.state.engines['vllm']!.pending).toEqual({ '0.12.0': { tag: 'v0.12.0', release_url: release.release_url, published_at: release.published_at, since: '2026-10-01' } });
    expect(second.stderr).toContain('1 new, 0 pending, 0 errors, 1 awaiting images');
    expect(second.stderr).toContain('  awaiting vllm 0.12.0  reported new for its official image; waiting for vllm/vllm-openai-rocm:v0.12.0');

    // plan: the NVIDIA jobs with the CUDA image; MI300X skipped, with a note, rather than a `docker pull` that fails.
    const planned = planNew(second.report);
    expect(planned.jobs.length).toBeGreaterThan(0);
    expect(new Set(planned.jobs.map((j) => j.gpu_type))).toEqual(new Set(['h100-sxm-80gb', 'h200-sxm-141gb', 'l40s-48gb']));
    expect(planned.jobs.every((j) => j.image === 'vllm/vllm-openai:v0.12.0')).toBe(true);
    const skip = 'its image vllm/vllm-openai-rocm:v0.12.0 is not published yet; detect keeps the release pending for it and reports it again once it is out';
    expect(planned.notes).toEqual([`vllm 0.12.0 (new): mi300x-192gb skipped: ${skip}`]);
    expect(planned.skipped).toEqual([{ engine: 'vllm', version: '0.12.0', gpu_type: 'mi300x-192gb', image: 'vllm/vllm-openai-rocm:v0.12.0', reason: skip }]);

    // The next night: the listing is unchanged (304); only the ROCm image is asked again, and it is still missing.
    clock.ms += 86_400_000;
    const still = await detectRun(['--engine', 'vllm', '--fleet', SHIPPED_FLEET]);
    expect([still.code, still.report.new, still.report.pending]).toEqual([0, [], []]);
    expect(still.report.awaiting_images.map((v) => [v.version, v.pending_images, v.since])).toEqual([['0.12.0', ['vllm/vllm-openai-rocm:v0.12.0'], '2026-10-01']]);
    expect(answered('/v2/namespaces/vllm/repositories/vllm-openai/tags/v0.12.0')).toEqual([200]);
    expect(answered('/v2/namespaces/vllm/repositories/vllm-openai-rocm/tags/v0.12.0')).toEqual([404, 404]);

    // The ROCm tag appears: reported again, images_only, and plan runs the MI300X jobs alone.
    hub.push('vllm/vllm-openai-rocm', 'v0.12.0');
    const out = await detectRun(['--engine', 'vllm', '--fleet', SHIPPED_FLEET]);
    expect(out.report.new).toEqual([{ ...release, image: 'vllm/vllm-openai:v0.12.0', images: [rocm('0.12.0', true)], images_only: true }]);
    expect(out.report.awaiting_images).toEqual([]);
    expect(out.state.engines['vllm']!.pending).toEqual({});
    expect(out.state.engines['vllm']!.seen['0.12.0']).toBe('2026-10-01');
    expect(out.stderr).toContain('new      vllm 0.12.0  fleet images only: vllm/vllm-openai-rocm:v0.12.0');
    const retried = planNew(out.report);
    expect(new Set(retried.jobs.map((j) => j.gpu_type))).toEqual(new Set(['mi300x-192gb']));
    expect(retried.jobs.every((j) => j.image === 'vllm/vllm-openai-rocm:v0.12.0' && j.argv.includes('--image'))).toBe(true);
    expect(retried.skipped).toEqual([]);
    expect(retried.notes).toEqual([expect.stringMatching(/^vllm 0\.12\.0 \(new\): its fleet images are out now: planned only on the GPU types that run them/)]);

    const after = await detectRun(['--engine', 'vllm', '--fleet', SHIPPED_FLEET]);
    expect([after.report.new, after.report.pending, after.report.awaiting_images]).toEqual([[], [], []]);
  });

  it("an image keyed by GPU type (SGLang's mi300x build); a fleet that no longer declares it ends the wait", async () => {
    github.publish('sgl-project/sglang', { tag_name: 'v0.5.4', published_at: '2026-09-30T00:00:00Z' });
    hub.push('lmsysorg/sglang', 'v0.5.4');
    const first = await detectRun(['--engine', 'sglang', '--fleet', SHIPPED_FLEET]);
    expect(first.report.new.map((v) => v.images)).toEqual([[{ key: 'mi300x-192gb', gpu_types: ['mi300x-192gb'], image: 'lmsysorg/sglang:v0.5.4-rocm10-mi30x', published: false }]]);
    expect(Object.keys(first.state.engines['sglang']!.pending)).toEqual(['0.5.4']);

    // A fleet that declares no image: nothing to run it on, so nothing to wait for.
    const none = await detectRun(['--engine', 'sglang', '--dry-run']);
    expect([none.report.new, none.report.awaiting_images]).toEqual([[], []]);
    expect(none.report.notes.map((n) => n.message)).toEqual(['0.5.4: no longer waited for: the fleet declares no image of sglang for new releases']);

    hub.push('lmsysorg/sglang', 'v0.5.4-rocm10-mi30x');
    const out = await detectRun(['--engine', 'sglang', '--fleet', SHIPPED_FLEET]);
    expect(out.report.new.map((v) => [v.version, v.images_only, v.images.map((i) => i.published)])).toEqual([['0.5.4', true, [true]]]);
  });
});

describe('detectCommand (the CLI entry)', () => {
  it('polls every engine with a repository, --dry-run leaves the state alone, --out gets the report', async () => {
    const releases: Array<[string, string, () => void]> = [
      ['vllm-project/vllm', 'v0.11.0', () => hub.push('vllm/vllm-openai', 'v0.11.0')],
      ['sgl-project/sglang', 'v0.5.3', () => hub.push('lmsysorg/sglang', 'v0.5.3')],
      ['InternLM/lmdeploy', 'v0.10.1', () => hub.push('openmmlab/lmdeploy', 'v0.10.1-cu12.8')],
      ['NVIDIA/TensorRT-LLM', 'v1.0.0', () => undefined],
      ['mlc-ai/mlc-llm', 'v0.1.0', () => undefined],
      ['withcatai/node-llama-cpp', 'v3.21.0', () => undefined],
    ];
    for (const [repo, tag, pushImage] of releases) {
      github.publish(repo, { tag_name: tag, published_at: '2026-09-30T00:00:00Z' });
      pushImage();
    }
    vi.stubEnv('SERVEBENCH_GITHUB_API_URL', server.url);
    vi.stubEnv('SERVEBENCH_REGISTRY_OVERRIDE', `docker.io=${server.url},ghcr.io=${server.url}/ghcr,nvcr.io=${server.url}/nvcr`);
    vi.stubEnv('GITHUB_TOKEN', '');
    // llama.cpp's releases from the (recorded) npm registry, each version's tarball fetched by the real `npm pack`.
    npm.tarballsForRecorded();
    vi.stubEnv('npm_config_registry', server.url);
    let stdout = '';
    let stderr = '';
    const io = { stdout: (text: string) => void (stdout += text), stderr: (text: string) => void (stderr += text), env: process.env };
    const outFile = join(dir, 'out', 'detect.json');

    const code = await detectCommand.run(['--state', stateFile, '--dry-run', '--out', outFile], io);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as DetectReport;
    expect(readFileSync(outFile, 'utf8')).toBe(stdout);
    expect(existsSync(stateFile)).toBe(false);
    expect(report.errors).toEqual([]);
    expect(report.new.map((v) => `${v.engine} ${v.version} ${v.image}`).sort()).toEqual([
      'embedded 3.21.0 null',
      'llamacpp 3.21.1 null',
      'lmdeploy 0.10.1 openmmlab/lmdeploy:v0.10.1-cu12.8',
      'mlc 0.1.0 null',
      'sglang 0.5.3 lmsysorg/sglang:v0.5.3',
      'vllm 0.11.0 vllm/vllm-openai:v0.11.0',
    ]);
    expect(report.pending.map((v) => `${v.engine} ${v.version} ${v.image}`)).toEqual(['trtllm 1.0.0 nvcr.io/nvidia/tensorrt-llm/release:1.0.0']);
    // No --fleet: fleet/fleet.yaml (the tests run in the checkout), so its ROCm images were checked too.
    expect(report.new.filter((v) => v.images.length > 0).map((v) => `${v.engine} ${v.images.map((i) => `${i.key}=${i.image}:${i.published}`).join()}`).sort()).toEqual([
      'sglang mi300x-192gb=lmsysorg/sglang:v0.5.3-rocm10-mi30x:false',
      'vllm amd=vllm/vllm-openai-rocm:v0.11.0:false',
    ]);
    expect(report.awaiting_images.map((v) => `${v.engine} ${v.version}`).sort()).toEqual(['sglang 0.5.3', 'vllm 0.11.0']);
    expect(stderr).toContain('detect: 7 engines polled, skipped (no repository): sim; 6 new, 1 pending, 0 errors, 2 awaiting images');
    expect(stderr).toContain('state not written (--dry-run); ');
    // What the poll reported is not appended to the release list either (releases.json beside the state).
    expect(stderr).toMatch(/; (no new known release|\d+ known releases? not appended \(--dry-run\) \([^)]*\)); fleet images from /);
    expect(stderr).toContain(`fleet images from ${join(process.cwd(), 'fleet', 'fleet.yaml')}`);
  });

  it('bad usage is exit status 2 with the fix; --help lists every flag', async () => {
    const usage = async (args: string[]) => {
      const error = await detectCommand.run([...args, '--state', stateFile]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServebenchError);
      expect((error as ServebenchError).exitCode).toBe(2);
      return (error as ServebenchError).message;
    };
    expect(await usage(['--engine', 'nope'])).toMatch(/no engine "nope"; known: .*vllm/);
    expect(await usage(['--registry-url', 'ghcr.io'])).toMatch(/--registry-url: "ghcr.io" is not HOST=URL/);
    expect(await usage(['--max-wait=-1'])).toMatch(/--max-wait: -1 is too small/);
    expect(await usage(['--bogus'])).toMatch(/Unknown option '--bogus'/);
    expect(await usage(['--engine', 'vllm', '--fleet', join(dir, 'nope.yaml')])).toMatch(/--fleet: no file .*nope\.yaml/);
    mkdirSync(join(dir, 'fleet'), { recursive: true });
    writeFileSync(stateFile, '{"schema_version": 2}');
    expect(await usage(['--engine', 'vllm'])).toMatch(/--state: .*detect-state\.json: schema_version: .*restore it from git/);

    const help = formatHelp(detectCommand.spec);
    for (const flag of ['--engine NAME', '--engines-dir DIR', '--fleet FILE', '--state FILE', '--dry-run', '--include-prereleases', '--out FILE', '--max-wait S', '--github-api URL', '--registry-url HOST=URL']) expect(help).toContain(flag);
  });

  it('the shipped initial state is valid and empty', async () => {
    const shipped = JSON.parse(readFileSync(new URL('../../fleet/detect-state.json', import.meta.url), 'utf8')) as unknown;
    expect(shipped).toEqual({ schema_version: 1, engines: {} });
  });
});

describe('detect helpers', () => {
  it('derives versions from tags, orders them, spots prereleases', () => {
    expect(['v0.11.0', 'b6123', '1.0.0rc4', 'v0.5.3.post1', 'gateway-v0.2.0', 'nightly', 'vv1'].map(versionFromTag)).toEqual(['0.11.0', '6123', '1.0.0rc4', '0.5.3.post1', null, null, null]);
    const sorted = ['1.0.0', '0.10.0', '1.0.0rc4', '0.9.2', '1.0.0.post1', '1.0.0rc10', '0.10.0-beta.1'].sort(compareVersions);
    expect(sorted).toEqual(['0.9.2', '0.10.0-beta.1', '0.10.0', '1.0.0rc4', '1.0.0rc10', '1.0.0', '1.0.0.post1']);
    // Bounded to the fleet's release names (VersionSchema: at most 64 characters).
    expect(versionFromTag(`v${'1'.repeat(64)}`)).toBe('1'.repeat(64));
    expect(versionFromTag(`v${'1'.repeat(65)}`)).toBeNull();
    expect(tagVersion(`v${'1'.repeat(65)}`)).toEqual({ refused: expect.stringContaining('at most 64') });
    expect(tagVersion('v0.11.0+cu126')).toEqual({ version: '0.11.0+cu126' });
    expect(tagVersion('nightly')).toBeNull();
    expect(['1.0.0rc4', '0.5.0-beta.1', '1.2.0a1', '0.1.dev0', '6123', '0.5.3.post1'].map(looksLikePrerelease)).toEqual([true, true, true, true, false, false]);
  });

  it('parses Link, WWW-Authenticate and rate-limit headers as the servers write them', () => {
    expect(parseLinkHeader('<https://api.github.com/repositories/8514/issues?page=2>; rel="next", <https://api.github.com/repositories/8514/issues?page=26>; rel="last"')).toEqual({
      next: 'https://api.github.com/repositories/8514/issues?page=2',
      last: 'https://api.github.com/repositories/8514/issues?page=26',
    });
    expect(parseWwwAuthenticate('Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:ggml-org/llama.cpp:pull"')).toEqual({
      scheme: 'bearer',
      params: { realm: 'https://ghcr.io/token', service: 'ghcr.io', scope: 'repository:ggml-org/llama.cpp:pull' },
    });
    expect(parseWwwAuthenticate('Bearer realm="https://gcr.io/v2/token",service=gcr.io')!.params).toEqual({ realm: 'https://gcr.io/v2/token', service: 'gcr.io' });
    const response = (status: number, headers: Record<string, string>) => ({ url: 'x', status, headers, body: '' });
    expect(rateLimitWaitS(response(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1000' }), 990_000)).toBe(10);
    expect(rateLimitWaitS(response(429, { 'retry-after': '7' }), 0)).toBe(7);
    expect(rateLimitWaitS(response(403, { 'x-ratelimit-remaining': '12' }), 0)).toBeNull();
    expect(rateLimitWaitS(response(200, { 'x-ratelimit-remaining': '0' }), 0)).toBeNull();
  });

  it('names images as the engine specs write them', () => {
    expect(imageRef('vllm/vllm-openai', 'v0.11.0')).toEqual({ registry: 'docker.io', name: 'vllm/vllm-openai', tag: 'v0.11.0', display: 'vllm/vllm-openai:v0.11.0' });
    expect(imageRef('ubuntu', '24.04').name).toBe('library/ubuntu');
    expect(imageRef('nvcr.io/nvidia/tensorrt-llm/release', '1.0.0')).toMatchObject({ registry: 'nvcr.io', name: 'nvidia/tensorrt-llm/release' });
    expect(imageRef('localhost:5000/x/y', 't')).toMatchObject({ registry: 'localhost:5000', name: 'x/y' });
    expect(() => imageRef('vllm/vllm-openai', 'v1.0+cu12')).toThrow(/not a valid image tag/);
    expect([...parseRegistryOverrides(['hub.docker.com=http://a/', 'ghcr.io=http://b'], { SERVEBENCH_REGISTRY_OVERRIDE: 'nvcr.io=http://c' })]).toEqual([
      ['nvcr.io', 'http://c'],
      ['docker.io', 'http://a'],
      ['ghcr.io', 'http://b'],
    ]);
  });
});
