/**
 * The measured request against answers that do not end, on 127.0.0.1: the sim's endless stream
 * of valid tokens (a server that once took one request to 1.26 GB in 40 s), its 500 whose body
 * never ends (once classified as a timeout and held for the whole timeout), a 500 that goes
 * silent after its first bytes, and llama.cpp's mid-stream error event (once recorded as a bare
 * stream_error count). Each request must end at its own bound, classed by what happened, with the
 * server's own message kept per point, and the client's memory must not follow the server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FAILURE_MESSAGE_CHARS, PointSchema } from '../../harness/contract/result.ts';
import { cleanFailureMessage } from '../../harness/measure/load/failure-messages.ts';
import { ERROR_BODY_BYTES, ERROR_BODY_DEADLINE_MS, runawayLimits } from '../../harness/measure/load/send-request.ts';
import { ENDLESS_ERROR_MESSAGE } from '../../harness/engines/sim/endless.ts';
import { LLAMACPP_CONTENT_ONLY_ERROR } from '../../harness/engines/sim/stream.ts';
import { checkResultText } from '../../harness/store/check-result.ts';
import { loadAgainst } from './run-sim.ts';
import { fastSim } from './sim-fixture.ts';

const MiB = 1024 * 1024;
/** Memory a point may add whatever the server sends: undici's and the sockets' buffers, the heap's slack. */
const SLACK_BYTES = 64 * MiB;
/** What the sim gets written beyond what the client read before it hangs up: both ends' socket buffers. */
const SOCKET_SLACK_BYTES = 16 * MiB;
/** A request timeout far above every bound under test: a request that ends near it was not bounded. */
const TIMEOUT_S = 60;
/** "At once" on a loaded 2-core machine. */
const SOON_MS = 5000;

const flags = { 'input-len': '10', 'output-len': '16', 'num-prompts': '4', concurrency: '2', warmup: '0', timeout: String(TIMEOUT_S) };

/** Runs `call`, sampling this process's RSS every few milliseconds for its peak growth. */
async function measured<T>(call: () => Promise<T>): Promise<{ value: T; ms: number; growth: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const started = performance.now();
  try {
    const value = await call();
    return { value, ms: performance.now() - started, growth: Math.max(peak, process.memoryUsage().rss) - before };
  } finally {
    clearInterval(sampler);
  }
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve)))));
});

/** A server that serves `m` and answers every completion with `answer`. */
async function serverAnswering(answer: (response: import('node:http').ServerResponse) => void): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url?.startsWith('/v1/models')) response.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"sim-model","object":"model"}]}');
      else if (request.url?.startsWith('/v1/completions')) answer(response);
      else response.writeHead(404).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a stream of valid tokens that never ends', () => {
  it(`fails as runaway_stream at ${runawayLimits(16).events} events (4 per token of max_tokens 16, and 32), closing the connection at once`, async () => {
    const sim = await fastSim({ faults: { endless: 1 } });
    const { value: run, ms, growth } = await measured(() => loadAgainst(sim.url, flags));
    const point = run.result.points[0]!;
    expect(point.failures.runaway_stream).toBe(4);
    expect(point.metrics.failed).toBe(4);
    for (const record of run.records[0]!) {
      expect(record.failure).toMatchObject({ class: 'runaway_stream', status: null });
      // Nothing recorded past the cap (every event of this stream carries text).
      expect(record.contentTimesMs.length).toBeLessThanOrEqual(runawayLimits(16).events);
      expect(record.contentTimesMs.length).toBeGreaterThan(16);
    }
    expect(point.failure_messages).toEqual([
      { class: 'runaway_stream', message: `the stream went on past ${runawayLimits(16).events} events (4 per token of max_tokens 16, and 32): the server did not stop generating`, count: 4 },
    ]);
    expect(ms).toBeLessThan(SOON_MS);
    // The sim saw the client hang up, having written no more than the sockets hold beyond the cap.
    for (const truth of sim.groundTruth()) {
      for (let waited = 0; truth.end_ms === null && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(truth).toMatchObject({ fault: 'endless', client_aborted: true });
      // A sim token event is about 120 bytes.
      expect(truth.completion_tokens * 120).toBeLessThan(SOCKET_SLACK_BYTES);
    }
    expect(growth, `RSS grew ${(growth / MiB).toFixed(0)} MiB`).toBeLessThan(SLACK_BYTES);

    // The cap leaves room for what a working server adds: at max_tokens 1, llama.cpp's chat role
    // chunk, the token, the finish chunk, the usage chunk and [DONE].
    const working = await fastSim({ personality: 'llamacpp' });
    const fine = await loadAgainst(working.url, { ...flags, 'output-len': '1', api: 'chat' });
    expect(fine.result.points[0]!.metrics.completed).toBe(4);
  });

  it('the text cap holds too: few events, each with a megabyte of text', async () => {
    const huge = JSON.stringify(' word'.repeat(MiB / 5));
    const url = await serverAnswering((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const write = (): void => {
        while (!response.destroyed && response.write(`data: {"choices":[{"index":0,"text":${huge},"finish_reason":null}]}\n\n`));
        if (!response.destroyed) response.once('drain', write);
      };
      write();
    });
    const { value: run, ms } = await measured(() => loadAgainst(url, { ...flags, 'num-prompts': '2', concurrency: '1' }));
    for (const record of run.records[0]!) {
      expect(record.failure!.class).toBe('runaway_stream');
      expect(record.failure!.message).toMatch(new RegExp(`more than ${runawayLimits(16).chars} characters of text`));
      expect(record.contentChars.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(runawayLimits(16).chars);
    }
    expect(ms).toBeLessThan(SOON_MS);
  });

});

describe('an error answer is quoted, classed by its status, never a timeout', () => {
  it(`an endless 500 body: http_error 500 after ${ERROR_BODY_BYTES / 1024} KiB, at once, with the server's words`, async () => {
    const sim = await fastSim({ faults: { http500_endless: 1 } });
    const { value: run, ms, growth } = await measured(() => loadAgainst(sim.url, flags));
    const point = run.result.points[0]!;
    expect(point.failures.http_error).toBe(4);
    expect(point.failures.timeout).toBe(0);
    expect(run.records[0]!.every((record) => record.failure!.status === 500)).toBe(true);
    expect(ms).toBeLessThan(SOON_MS);
    const [message] = point.failure_messages!;
    expect(message).toMatchObject({ class: 'http_error', count: 4 });
    // The body was cut, so it is no JSON: quoted as it came, to the message's length.
    expect(message!.message.startsWith(`HTTP 500: {"error":{"code":500,"type":"server_error","message":"${ENDLESS_ERROR_MESSAGE}: xxx`)).toBe(true);
    expect(message!.message).toHaveLength(MAX_FAILURE_MESSAGE_CHARS);
    expect(growth, `RSS grew ${(growth / MiB).toFixed(0)} MiB`).toBeLessThan(SLACK_BYTES);
  });

  it(`a 500 that goes silent after its first bytes: http_error 500 at ${ERROR_BODY_DEADLINE_MS} ms, not a timeout at ${TIMEOUT_S} s`, async () => {
    const url = await serverAnswering((response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.write('{"error":{"message":"upstream ');
    });
    const { value: run, ms } = await measured(() => loadAgainst(url, { ...flags, 'num-prompts': '2', concurrency: '2' }));
    const point = run.result.points[0]!;
    expect(point.failures).toMatchObject({ http_error: 2, timeout: 0 });
    expect(point.failure_messages).toEqual([{ class: 'http_error', message: 'HTTP 500: {"error":{"message":"upstream', count: 2 }]);
    expect(ms).toBeGreaterThanOrEqual(ERROR_BODY_DEADLINE_MS - 50);
    expect(ms).toBeLessThan(ERROR_BODY_DEADLINE_MS + SOON_MS);
  });

  it("a whole JSON error keeps the server's message, and a 429 its own", async () => {
    const sim = await fastSim({ faults: { http500: 0.5, http429: 0.5 }, seed: 7 });
    const run = await loadAgainst(sim.url, { ...flags, 'num-prompts': '20', concurrency: '4' });
    const point = run.result.points[0]!;
    const messages = point.failure_messages!;
    expect(messages.map((m) => m.message).sort()).toEqual(['HTTP 429: Simulated rate limit (--faults http429); retry later.', 'HTTP 500: Simulated internal server error (--faults http500).']);
    expect(messages.reduce((sum, m) => sum + m.count, 0)).toBe(20);
    expect(messages[0]!.count).toBeGreaterThanOrEqual(messages[1]!.count);
  });
});

describe("llama.cpp's mid-stream error event", () => {
  it('is a stream_error that keeps what llama.cpp said, with its count', async () => {
    const sim = await fastSim({ personality: 'llamacpp', faults: { error_event: 0.5 }, seed: 1 });
    const run = await loadAgainst(sim.url, { ...flags, 'num-prompts': '20', concurrency: '4' });
    const point = run.result.points[0]!;
    const injected = sim.groundTruth().filter((truth) => truth.fault === 'error_event').length;
    expect(injected).toBeGreaterThan(2);
    expect(point.failures.stream_error).toBe(injected);
    expect(point.failure_messages).toEqual([{ class: 'stream_error', message: LLAMACPP_CONTENT_ONLY_ERROR, count: injected }]);
    expect(PointSchema.parse(point).failure_messages).toHaveLength(1);
  });
});

describe('failure messages in the result', () => {
  it('credentials redacted, control and bidi characters gone, cut to the limit on a whole character', () => {
    expect(cleanFailureMessage('HTTP 401: Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD.\n\u202eevil\u0007')).toBe(
      'HTTP 401: Incorrect API key provided: <redacted>. evil',
    );
    expect(cleanFailureMessage('Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789 refused')).toBe('Authorization: Bearer <redacted> refused');
    const cut = cleanFailureMessage(`${'x'.repeat(MAX_FAILURE_MESSAGE_CHARS - 1)}🙂🙂`);
    expect(cut).toBe('x'.repeat(MAX_FAILURE_MESSAGE_CHARS - 1));
  });

  it('a server that puts a credential and a bidi override in its error: the result holds neither', async () => {
    const url = await serverAnswering((response) => {
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'bad key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD \u202egnp.exe' } }));
    });
    const run = await loadAgainst(url, { ...flags, 'num-prompts': '2', concurrency: '1' });
    const text = JSON.stringify(run.result);
    expect(run.result.points[0]!.failure_messages).toEqual([{ class: 'http_error', message: 'HTTP 401: bad key <redacted> gnp.exe', count: 2 }]);
    expect(text).not.toContain('abcdefghijklmnopqrstuvwxyz');
    expect(text).not.toContain('\u202e');
  });

  it('validate holds their counts to the failures of their class', async () => {
    const sim = await fastSim({ faults: { http500: 1 } });
    const run = await loadAgainst(sim.url, { ...flags, 'num-prompts': '2', concurrency: '1' });
    const rules = (result: unknown): string[] => checkResultText('r.json', JSON.stringify(result), null).problems.filter((p) => p.path.includes('failure_messages')).map((p) => p.message);
    expect(rules(run.result)).toEqual([]);
    const inflated = structuredClone(run.result);
    inflated.points[0]!.failure_messages![0]!.count = 3;
    expect(rules(inflated)).toEqual(['[messages≤failures] messages of http_error count 3 requests, 2 failed as http_error']);
    const hidden = structuredClone(run.result);
    hidden.points[0]!.failure_messages![0]!.message = 'HTTP 500: \u202eevil';
    expect(rules(hidden)).toEqual(['[schema] a failure message holds no control or invisible format characters']);
  });
});
