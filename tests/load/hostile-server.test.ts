/**
 * A hostile server against every read the client makes besides the measured stream: each of its
 * answers is an endless body (written as fast as the socket takes it) or a trickle (a byte every
 * 100 ms, never finished). Each read must fail with an error that names the URL and the limit,
 * within its time limit, and the client's memory must grow by no more than that read's size cap
 * (plus the buffers of one socket), not by what the server sent. A server like this once drove the
 * client to 9.5 GB in 20 s.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { postWebhook } from '../../harness/pipeline/alert/webhook.ts';
import { conditionalGet, MAX_API_BODY_BYTES, type HttpPolicy } from '../../harness/pipeline/http/http-conditional.ts';
import { BoundedReadError, requestBounded } from '../../harness/lib/io/bounded-body.ts';
import { MODELS_LIMITS, parseEndpoint, preflight, VERSION_LIMITS } from '../../harness/measure/load/endpoint.ts';
import { MAX_SSE_BUFFER_BYTES } from '../../harness/measure/load/sse-decoder.ts';
import { ENGINE_VERSION_LIMITS, engineVersion } from '../../harness/measure/run/engine-version.ts';
import { HEALTH_LIMITS, HealthError, waitHealthy } from '../../harness/measure/run/health.ts';
import type { LaunchedServer } from '../../harness/measure/run/launched-server.ts';
import { PROBE_LIMITS, probeServer } from '../../harness/measure/run/probe.ts';
import type { Engine } from '../../harness/contract/engine.ts';
import { METRICS_LIMITS, scrapeEngineMetrics } from '../../harness/measure/telemetry/engine-metrics.ts';
import { TOKENIZER_JSON_LIMITS, downloadTokenizer } from '../../harness/measure/tokenizer/hub-download.ts';
import { postJson, TOKENIZE_LIMITS } from '../../harness/measure/tokenizer/server-calls.ts';
import { CLI_PATH } from '../cli/run-cli.ts';
import { loadAgainst } from './run-sim.ts';

const MiB = 1024 * 1024;
/**
 * What the server sends at most in one endless answer: far beyond every cap (the largest is the
 * Hub's 128 MiB), so a client without one reads it all and shows it in its memory, yet the test
 * machine survives the old client.
 */
const ENDLESS_BYTES = 512 * MiB;
/** Memory a read may add beyond its cap: undici's and the socket's buffers, the heap's slack. */
const SLACK_BYTES = 64 * MiB;
/** What a server gets written beyond the cap before the client hangs up: both ends' socket buffers (a few MiB on loopback). */
const SOCKET_SLACK_BYTES = 16 * MiB;
/** A bounded read stops at its limit; this much later is still "at" it on a loaded 2-core machine. */
const LATE_MS = 5000;

type Kind = 'json' | 'metrics' | 'sse' | 'line' | 'text';
const FILL: Record<Kind, Buffer> = {
  json: Buffer.from('0,'.repeat(32 * 1024)),
  metrics: Buffer.from('vllm:num_requests_running{model_name="m"} 1\n'.repeat(1500)),
  sse: Buffer.from('data: {"choices":[{"index":0,"text":"x","finish_reason":null}]}\n\n'.repeat(1000)),
  // A data line that never ends: no newline, ever.
  line: Buffer.from('x'.repeat(64 * 1024)),
  text: Buffer.from('ok'.repeat(32 * 1024)),
};
const OPENING: Record<Kind, string> = { json: '[', metrics: '', sse: '', line: 'data: ', text: '' };
const CONTENT_TYPE: Record<Kind, string> = {
  json: 'application/json',
  metrics: 'text/plain; version=0.0.4',
  sse: 'text/event-stream',
  line: 'text/event-stream',
  text: 'text/plain',
};

type Answer = { mode: 'endless' | 'trickle'; kind: Kind; status?: number } | ((request: IncomingMessage, body: string, response: ServerResponse) => void);

interface Hostile {
  readonly url: string;
  /** Path (without the query) → answer; a path without one gets 404. */
  readonly routes: Map<string, Answer>;
  /** Every request, with how much of an endless answer went out before the client hung up. */
  readonly seen: Served[];
  /** The most bytes sent in one answer to `path`, once every answer to it has ended. */
  sentTo(path: string): Promise<number>;
  close(): Promise<void>;
}

interface Served {
  readonly method: string;
  readonly path: string;
  sent: number;
  closed: boolean;
}

async function startHostile(): Promise<Hostile> {
  const routes = new Map<string, Answer>();
  const seen: Served[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0]!;
      const served: Served = { method: request.method ?? 'GET', path, sent: 0, closed: false };
      seen.push(served);
      response.on('close', () => (served.closed = true));
      const answer = routes.get(path);
      if (answer === undefined) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      } else if (typeof answer === 'function') {
        answer(request, Buffer.concat(chunks).toString('utf8'), response);
      } else if (answer.mode === 'endless') {
        endless(response, answer.kind, answer.status ?? 200, served);
      } else {
        trickle(response, answer.kind, answer.status ?? 200);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes,
    seen,
    async sentTo(path) {
      const answers = seen.filter((served) => served.path === path);
      if (answers.length === 0) throw new Error(`nothing asked for ${path}`);
      // A client that gave up has closed its socket; the server notices a moment later.
      for (let waited = 0; answers.some((served) => !served.closed) && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      return Math.max(...answers.map((served) => served.sent));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** As fast as the client reads, until it hangs up (or ENDLESS_BYTES, so an uncapped client ends). */
function endless(response: ServerResponse, kind: Kind, status: number, served: Served): void {
  response.writeHead(status, { 'content-type': CONTENT_TYPE[kind] });
  response.write(OPENING[kind]);
  const pump = (): void => {
    while (served.sent < ENDLESS_BYTES && !response.destroyed) {
      served.sent += FILL[kind].length;
      if (!response.write(FILL[kind])) {
        response.once('drain', pump);
        return;
      }
    }
    if (!response.destroyed) response.end();
  };
  pump();
}

/** The headers at once, then one byte every 100 ms, for ever: never silent long enough for a read timeout. */
function trickle(response: ServerResponse, kind: Kind, status: number): void {
  response.writeHead(status, { 'content-type': CONTENT_TYPE[kind] });
  response.flushHeaders();
  const byte = FILL[kind].subarray(0, 1);
  const timer = setInterval(() => response.write(byte), 100);
  response.on('close', () => clearInterval(timer));
}

interface Measured<T> {
  readonly outcome: { ok: true; value: T } | { ok: false; error: Error };
  readonly ms: number;
  /** Peak resident memory during the call, over what it was before. */
  readonly growth: number;
}

/** Runs `call`, timing it and sampling this process's RSS every few milliseconds for its peak. */
async function measure<T>(call: () => Promise<T>): Promise<Measured<T>> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const started = performance.now();
  let outcome: Measured<T>['outcome'];
  try {
    outcome = { ok: true, value: await call() };
  } catch (error) {
    outcome = { ok: false, error: error as Error };
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { outcome, ms, growth: peak - before };
}

function errorOf<T>(measured: Measured<T>): Error {
  if (measured.outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(measured.outcome.value)?.slice(0, 200)}`);
  return measured.outcome.error;
}

function valueOf<T>(measured: Measured<T>): T {
  if (!measured.outcome.ok) throw measured.outcome.error;
  return measured.outcome.value;
}

const fastPolicy = (timeoutMs: number): HttpPolicy => ({ maxWaitS: 0, retries: 0, backoffMs: 1, timeoutMs, sleep: async () => {}, now: () => Date.now() });

const ENGINE = {
  version: { http: '/version', field: 'version' },
  metrics: { path: '/metrics' },
} as unknown as Engine;

function launched(endpoint: string): LaunchedServer {
  return { endpoint, logFile: null, launcher: 'external', command: [], image: null, imageDigest: null, pid: null, exitStatus: () => null, stop: async () => {} } as unknown as LaunchedServer;
}

const BODY = { model: 'm', temperature: 0, ignoreEos: true, extraBody: {} };

/** A working /v1/completions stream of as many tokens as asked for, and a /v1/models serving `m`. */
function completions(request: IncomingMessage, body: string, response: ServerResponse): void {
  void request;
  const maxTokens = (JSON.parse(body) as { max_tokens?: number }).max_tokens ?? 8;
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (let i = 0; i < maxTokens; i++) {
    const last = i === maxTokens - 1;
    const chunk = { choices: [{ index: 0, text: ' tok', finish_reason: last ? 'length' : null }], ...(last ? { usage: { prompt_tokens: 16, completion_tokens: maxTokens } } : {}) };
    response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  response.end('data: [DONE]\n\n');
}

function models(_request: IncomingMessage, _body: string, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
}

describe('a hostile server: every auxiliary read is bounded in size', () => {
  let hostile: Hostile;
  beforeAll(async () => {
    hostile = await startHostile();
  });
  afterAll(async () => {
    await hostile?.close();
  });

  /** Routes for one test, and a fresh count of what was sent. */
  function answer(routes: Record<string, Answer>): void {
    hostile.routes.clear();
    hostile.seen.length = 0;
    for (const [path, route] of Object.entries(routes)) hostile.routes.set(path, route);
  }

  /**
   * The client stopped reading at the cap: the server got no further than that and what the
   * sockets buffer. Its memory grew by at most the cap and the slack (RSS is noisy, and not given
   * back at once, so the bytes sent are the sharper check), and it ended quickly.
   */
  async function bounded<T>(measured: Measured<T>, capBytes: number, paths: readonly string[]): Promise<void> {
    for (const path of paths) expect(await hostile.sentTo(path), `bytes sent to ${path}`).toBeLessThan(capBytes + SOCKET_SLACK_BYTES);
    expect(measured.growth, `RSS grew ${(measured.growth / MiB).toFixed(0)} MiB`).toBeLessThan(capBytes + SLACK_BYTES);
    expect(measured.ms).toBeLessThan(10_000);
  }

  it('/v1/models: the preflight fails naming the URL and the 8 MiB limit', async () => {
    answer({ '/v1/models': { mode: 'endless', kind: 'json' } });
    const measured = await measure(() => preflight(parseEndpoint(hostile.url), 'm', {}));
    expect(errorOf(measured).message).toMatch(new RegExp(`${hostile.url}/v1/models: the answer is larger than 8 MiB, the size limit`));
    expect(errorOf(measured).message).toMatch(/is .* an OpenAI-compatible server\?/);
    await bounded(measured, MODELS_LIMITS.maxBytes, ['/v1/models']);
  });

  it('/version, /props, /server_info: the preflight goes on without a version', async () => {
    const paths = ['/version', '/props', '/server_info'];
    answer({ '/v1/models': models, ...Object.fromEntries(paths.map((path) => [path, { mode: 'endless', kind: 'json' } as const])) });
    const measured = await measure(() => preflight(parseEndpoint(hostile.url), 'm', {}));
    expect(valueOf(measured)).toEqual({ servedModels: ['m'], serverVersion: null });
    await bounded(measured, VERSION_LIMITS.maxBytes, paths);
  });

  it("/metrics: the scrape gives nothing rather than the server's endless answer", async () => {
    answer({ '/metrics': { mode: 'endless', kind: 'metrics' } });
    const measured = await measure(() => scrapeEngineMetrics(`${hostile.url}/metrics`));
    expect(valueOf(measured)).toBeNull();
    await bounded(measured, METRICS_LIMITS.maxBytes, ['/metrics']);
  });

  it("the engine's /version: no version", async () => {
    answer({ '/version': { mode: 'endless', kind: 'json' } });
    const measured = await measure(() => engineVersion(ENGINE, launched(hostile.url)));
    expect(valueOf(measured)).toBeNull();
    await bounded(measured, ENGINE_VERSION_LIMITS.maxBytes, ['/version']);
  });

  it('/tokenize: fails naming the URL and the 32 MiB limit', async () => {
    answer({ '/tokenize': { mode: 'endless', kind: 'json' } });
    const measured = await measure(() => postJson(`${hostile.url}/tokenize`, {}, { content: 'hi' }));
    expect(errorOf(measured)).toBeInstanceOf(BoundedReadError);
    expect(errorOf(measured).message).toMatch(new RegExp(`${hostile.url}/tokenize: the answer is larger than 32 MiB`));
    await bounded(measured, TOKENIZE_LIMITS.maxBytes, ['/tokenize']);
  });

  it('the probe: an endless stream of valid events ends at 4 MiB; its /metrics and /tokenize count as absent', async () => {
    answer({ '/v1/completions': { mode: 'endless', kind: 'sse' }, '/metrics': { mode: 'endless', kind: 'metrics' }, '/tokenize': { mode: 'endless', kind: 'json' } });
    const measured = await measure(() => probeServer(hostile.url, ENGINE, 'completions', BODY, {}));
    const probe = valueOf(measured);
    expect(probe.error).toMatch(new RegExp(`${hostile.url}/v1/completions: the answer is larger than 4 MiB`));
    expect(probe).toMatchObject({ ignore_eos_honoured: null, metrics_endpoint: false, tokenize_endpoint: false });
    expect(await hostile.sentTo('/v1/completions')).toBeLessThan(PROBE_LIMITS.maxBytes + SOCKET_SLACK_BYTES);
    expect(await hostile.sentTo('/metrics')).toBeLessThan(METRICS_LIMITS.maxBytes + SOCKET_SLACK_BYTES);
    await bounded(measured, TOKENIZE_LIMITS.maxBytes, ['/tokenize']);
  });

  it("the probe: an endless error body is quoted, not read", async () => {
    answer({ '/v1/completions': { mode: 'endless', kind: 'text', status: 500 } });
    const measured = await measure(() => probeServer(hostile.url, { ...ENGINE, metrics: undefined } as unknown as Engine, 'completions', BODY, {}));
    expect(valueOf(measured).error).toMatch(/larger than 4 MiB/);
    await bounded(measured, PROBE_LIMITS.maxBytes, ['/v1/completions']);
  });

  it('the health check: only the status counts, the body is cut', async () => {
    answer({ '/health': { mode: 'endless', kind: 'text' } });
    const measured = await measure(() => waitHealthy(launched(hostile.url), { path: '/health', status: 200, timeout_s: 5 }, [], new AbortController().signal));
    expect(valueOf(measured)).toBeLessThan(5);
    await bounded(measured, HEALTH_LIMITS.maxBytes, ['/health']);
  });

  it('the Hub: tokenizer.json fails naming the URL and the 128 MiB limit', async () => {
    answer({ '/acme/model/resolve/main/tokenizer.json': { mode: 'endless', kind: 'json' } });
    const cache = mkdtempSync(join(tmpdir(), 'servebench-hostile-hf-'));
    const measured = await measure(() => downloadTokenizer('acme/model', { HF_ENDPOINT: hostile.url, HF_HUB_CACHE: cache }));
    expect(errorOf(measured).message).toMatch(new RegExp(`--tokenizer: ${hostile.url}/acme/model/resolve/main/tokenizer.json: the answer is larger than 128 MiB`));
    await bounded(measured, TOKENIZER_JSON_LIMITS.maxBytes, ['/acme/model/resolve/main/tokenizer.json']);
  });

  it('GitHub and registry APIs: fails at once (no retry) naming the request and the 32 MiB limit', async () => {
    answer({ '/repos/o/r/releases': { mode: 'endless', kind: 'json' } });
    const measured = await measure(() => conditionalGet({ url: `${hostile.url}/repos/o/r/releases` }, null, { ...fastPolicy(30_000), retries: 3 }));
    expect(errorOf(measured).message).toMatch(new RegExp(`GET ${hostile.url}/repos/o/r/releases: the answer is larger than 32 MiB`));
    expect(hostile.seen).toHaveLength(1);
    await bounded(measured, MAX_API_BODY_BYTES, ['/repos/o/r/releases']);
  });

  it('the webhook: an endless answer is cut to what is quoted; an endless 200 is a success', async () => {
    answer({ '/hook': { mode: 'endless', kind: 'text', status: 500 } });
    const failed = await measure(() => postWebhook(`${hostile.url}/hook`, { text: 'x', blocks: [] }, fastPolicy(30_000)));
    expect(errorOf(failed).message).toMatch(/^webhook: http:\/\/127\.0\.0\.1:\d+ answered 500 \((okok)+\)$/);
    await bounded(failed, 4096, ['/hook']);
    answer({ '/hook': { mode: 'endless', kind: 'text' } });
    const posted = await measure(() => postWebhook(`${hostile.url}/hook`, { text: 'x', blocks: [] }, fastPolicy(30_000)));
    valueOf(posted);
    await bounded(posted, 4096, ['/hook']);
  });
});

describe('a hostile server: every auxiliary read is bounded in time', () => {
  let hostile: Hostile;
  beforeAll(async () => {
    hostile = await startHostile();
    for (const path of ['/v1/models', '/version', '/metrics', '/tokenize', '/health', '/repos/o/r/releases', '/hook', '/v1/completions', '/acme/model/resolve/main/tokenizer.json']) {
      hostile.routes.set(path, { mode: 'trickle', kind: 'json' });
    }
  });
  afterAll(async () => {
    await hostile?.close();
  });

  /** Ended at its limit: not before (it is the limit that ended it), not much after. */
  function atLimit<T>(measured: Measured<T>, limitMs: number): void {
    expect(measured.ms).toBeGreaterThanOrEqual(limitMs - 50);
    expect(measured.ms).toBeLessThan(limitMs + LATE_MS);
  }

  it('each read ends at its own time limit, with an error that says so (all at once: the longest is 30 s)', async () => {
    const [models, metrics, version, tokenize, health, github, webhook] = await Promise.all([
      measure(() => preflight(parseEndpoint(hostile.url), 'm', {})),
      measure(() => scrapeEngineMetrics(`${hostile.url}/metrics`)),
      measure(() => engineVersion(ENGINE, launched(hostile.url))),
      measure(() => postJson(`${hostile.url}/tokenize`, {}, { content: 'hi' })),
      measure(() => waitHealthy(launched(hostile.url), { path: '/health', status: 200, timeout_s: 1 }, [], new AbortController().signal)),
      measure(() => conditionalGet({ url: `${hostile.url}/repos/o/r/releases` }, null, fastPolicy(1500))),
      measure(() => postWebhook(`${hostile.url}/hook`, { text: 'x', blocks: [] }, fastPolicy(1500))),
    ]);
    expect(errorOf(models).message).toMatch(new RegExp(`${hostile.url}/v1/models: no complete answer within 10 s, the time limit for this read; gave up on it; is the server overloaded or hung\\?`));
    atLimit(models, MODELS_LIMITS.timeoutMs);
    expect(valueOf(metrics)).toBeNull();
    atLimit(metrics, METRICS_LIMITS.timeoutMs);
    expect(valueOf(version)).toBeNull();
    atLimit(version, ENGINE_VERSION_LIMITS.timeoutMs);
    expect(errorOf(tokenize).message).toMatch(new RegExp(`${hostile.url}/tokenize: no complete answer within 30 s`));
    atLimit(tokenize, TOKENIZE_LIMITS.timeoutMs);
    expect(errorOf(health)).toBeInstanceOf(HealthError);
    atLimit(health, HEALTH_LIMITS.timeoutMs);
    expect(errorOf(github).message).toMatch(new RegExp(`GET ${hostile.url}/repos/o/r/releases: no complete answer within 1.5 s`));
    atLimit(github, 1500);
    expect(errorOf(webhook).message).toMatch(/^webhook: the webhook at http:\/\/127\.0\.0\.1:\d+: no complete answer within 1.5 s/);
    atLimit(webhook, 1500);
  }, 60_000);

  /**
   * The probe's (120 s) and the Hub's (3 min) limits are too long to sit out in a test: their
   * constants are shortened for it, which tests the same code path against the same server.
   */
  it('the probe and the Hub download end at their time limits', async () => {
    // The probe's own /tokenize call has a limit of its own, sat out above.
    hostile.routes.delete('/tokenize');
    const saved = [PROBE_LIMITS.timeoutMs, TOKENIZER_JSON_LIMITS.timeoutMs];
    Object.assign(PROBE_LIMITS, { timeoutMs: 1500 });
    Object.assign(TOKENIZER_JSON_LIMITS, { timeoutMs: 1500 });
    try {
      const cache = mkdtempSync(join(tmpdir(), 'servebench-hostile-hf-'));
      const [probe, hub] = await Promise.all([
        measure(() => probeServer(hostile.url, { ...ENGINE, metrics: undefined } as unknown as Engine, 'completions', BODY, {})),
        measure(() => downloadTokenizer('acme/model', { HF_ENDPOINT: hostile.url, HF_HUB_CACHE: cache })),
      ]);
      expect(valueOf(probe).error).toMatch(new RegExp(`${hostile.url}/v1/completions: no complete answer within 1.5 s`));
      expect(probe.ms).toBeLessThan(1500 + LATE_MS);
      expect(errorOf(hub).message).toMatch(/tokenizer\.json: no complete answer within 1.5 s/);
      atLimit(hub, 1500);
    } finally {
      Object.assign(PROBE_LIMITS, { timeoutMs: saved[0] });
      Object.assign(TOKENIZER_JSON_LIMITS, { timeoutMs: saved[1] });
    }
  });

  it('the bounded read itself: a server that never sends its headers ends at the limit too', async () => {
    hostile.routes.set('/silent', () => {});
    const measured = await measure(() => requestBounded(`${hostile.url}/silent`, {}, { maxBytes: MiB, timeoutMs: 1000 }));
    expect(errorOf(measured)).toMatchObject({ name: 'BoundedReadError', limit: 'time', target: `${hostile.url}/silent` });
    atLimit(measured, 1000);
  });
});

describe('the measured stream: an event that never ends', () => {
  it(`fails its request as malformed_event at ${MAX_SSE_BUFFER_BYTES / MiB} MiB, long before the request timeout`, async () => {
    const hostile = await startHostile();
    try {
      hostile.routes.set('/v1/models', models);
      hostile.routes.set('/v1/completions', { mode: 'endless', kind: 'line' });
      const measured = await measure(() => loadAgainst(hostile.url, { model: 'm', 'input-len': '8', 'output-len': '8', 'num-prompts': '2', concurrency: '1', warmup: '0', timeout: '120' }));
      const run = valueOf(measured);
      const records = run.records[0]!;
      expect(records.map((r) => r.failure?.class)).toEqual(['malformed_event', 'malformed_event']);
      expect(records[0]!.failure!.message).toMatch(/an event larger than 16 MiB/);
      expect(measured.ms).toBeLessThan(20_000);
      // Given up at the bound, not read on to the end of what the server had.
      expect(await hostile.sentTo('/v1/completions')).toBeLessThan(MAX_SSE_BUFFER_BYTES + SOCKET_SLACK_BYTES);
      // The decoder holds at most one event's worth per request (UTF-16: two bytes a character).
      expect(measured.growth).toBeLessThan(2 * MAX_SSE_BUFFER_BYTES + SLACK_BYTES * 2);
    } finally {
      await hostile.close();
    }
  }, 60_000);
});

interface CliRun {
  readonly code: number | null;
  readonly stderr: string;
  readonly ms: number;
  /** The child's peak resident memory (VmHWM), or null where /proc cannot tell. */
  readonly peakBytes: number | null;
}

/**
 * The child's peak RSS grew less than `bound` over the baseline run's. Peaks are sampled from /proc
 * (Linux): where there is none the memory half of the test cannot be checked, and the test ends
 * skipped, saying so (its other assertions ran; under CI=true an unlisted skip fails the run). On
 * Linux a run without a sample fails: it is no pass.
 */
function expectPeakGrowthBelow(context: TestContext, run: CliRun, baseline: CliRun, bound: number): void {
  if (!existsSync('/proc/self/status')) context.skip('peak RSS is read from /proc, which this OS has not: the memory bound was not checked');
  expect(run.peakBytes, 'peak RSS of the run, sampled from /proc').not.toBeNull();
  expect(baseline.peakBytes, 'peak RSS of the baseline run, sampled from /proc').not.toBeNull();
  expect(run.peakBytes! - baseline.peakBytes!).toBeLessThan(bound);
}

/** The real CLI in a child process, its peak RSS read from /proc while it runs. */
function runCliMeasured(args: readonly string[], timeoutMs: number): Promise<CliRun> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, ...args], { env: { ...process.env, OPENAI_API_KEY: '', HF_HUB_CACHE: mkdtempSync(join(tmpdir(), 'servebench-hostile-hf-')) }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    let peakBytes: number | null = null;
    const statusFile = `/proc/${child.pid}/status`;
    const sample = (): void => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(statusFile, 'utf8'));
        if (hwm) peakBytes = Math.max(peakBytes ?? 0, Number(hwm[1]) * 1024);
      } catch {
        // gone, or no /proc
      }
    };
    const sampler = setInterval(sample, 20);
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearInterval(sampler);
      clearTimeout(killer);
      resolve({ code, stderr, ms: performance.now() - started, peakBytes: existsSync('/proc/self/status') ? peakBytes : null });
    });
  });
}

describe('servebench load against a hostile server, end to end', () => {
  let hostile: Hostile;
  let baseline: CliRun;
  const dir = mkdtempSync(join(tmpdir(), 'servebench-hostile-'));
  const common = ['--model', 'm', '--input-len', '16', '--output-len', '8', '--num-prompts', '4', '--concurrency', '2', '--warmup', '0'];
  beforeAll(async () => {
    hostile = await startHostile();
    hostile.routes.set('/v1/models', models);
    hostile.routes.set('/v1/completions', completions);
    // The same run against a server without the hostile endpoints: what the client needs anyway.
    baseline = await runCliMeasured(['load', '--endpoint', hostile.url, ...common, '--out', join(dir, 'baseline.json')], 60_000);
  }, 90_000);
  afterAll(async () => {
    await hostile?.close();
  });

  it('completions work but /version, /props, /server_info, /tokenize, /detokenize, /apply-template answer without end: the run completes', async (context) => {
    expect(baseline.code, baseline.stderr).toBe(0);
    for (const path of ['/version', '/props', '/server_info', '/tokenize', '/detokenize', '/apply-template', '/metrics']) hostile.routes.set(path, { mode: 'endless', kind: 'json' });
    const out = join(dir, 'aux.json');
    const run = await runCliMeasured(['load', '--endpoint', hostile.url, ...common, '--out', out], 60_000);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(readFileSync(out, 'utf8')) as { target: { server_version: string | null }; points: Array<{ metrics: { completed: number } }> };
    expect(result.target.server_version).toBeNull();
    expect(result.points[0]!.metrics.completed).toBe(4);
    expect(run.ms).toBeLessThan(baseline.ms + 20_000);
    // Reads happen one at a time, the largest cap among them /tokenize's (read three or four
    // times: two styles tried, twice); a few may await the garbage collector together.
    expectPeakGrowthBelow(context, run, baseline, 3 * TOKENIZE_LIMITS.maxBytes + SLACK_BYTES);
  }, 90_000);

  it('/v1/models answers without end: exit 2 at once, saying which URL and which limit', async (context) => {
    hostile.routes.set('/v1/models', { mode: 'endless', kind: 'json' });
    const run = await runCliMeasured(['load', '--endpoint', hostile.url, ...common, '--out', join(dir, 'models.json')], 60_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`${hostile.url}/v1/models: the answer is larger than 8 MiB, the size limit for this read`));
    expect(run.ms).toBeLessThan(baseline.ms + 20_000);
    expectPeakGrowthBelow(context, run, baseline, MODELS_LIMITS.maxBytes + SLACK_BYTES);
  }, 90_000);
});
