/**
 * The simulated engine's HTTP server (node:http only). Routes, validates, draws faults and hands
 * generation requests to the engine loop; SimStream does the writing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { resolveSimConfig, type SimConfig } from './config.ts';
import { withLaunchNoise } from './launch-noise.ts';
import { withVersionedPerformance } from './versioned-performance.ts';
import { fitsKvBudget, kvReservation } from './cost-model.ts';
import { EngineLoop, type EngineSink } from './engine-loop.ts';
import { answerHash, decideFault, planGeneration } from './faults.ts';
import { monotonicOriginMs, newRecord, type GroundTruthDocument, type GroundTruthRecord } from './ground-truth.ts';
import { mix32 } from './hash.ts';
import { listen, readBody, sendJson } from './http-io.ts';
import { tokenizeResponse } from './tokenize.ts';
import { errorResponseBody, responseId as engineResponseId, streamFormat, type EndpointKind } from './personalities.ts';
import { errorEndless, streamEndless } from './endless.ts';
import { SimMetrics } from './prometheus.ts';
import { RequestError, errorBody, parseBody, parseSimRequest, type SimRequest } from './request.ts';
import { Scheduler } from './scheduler.ts';
import { SimStream, type StreamHost } from './stream.ts';
import { naturalLength } from './tokens.ts';
import { SimPrefixCache, cacheGranularity } from './prefix-cache.ts';

export interface SimServer {
  readonly url: string;
  readonly port: number;
  readonly config: SimConfig;
  /** Records of every generation request since start or the last reset (live objects). */
  groundTruth(): GroundTruthRecord[];
  resetGroundTruth(): void;
  /** Ends open streams, drops every connection and stops the engine. */
  close(): Promise<void>;
}

const GENERATION_PATHS: Readonly<Record<string, EndpointKind>> = {
  '/v1/chat/completions': 'chat',
  '/v1/completions': 'completion',
};

export async function startSimServer(partial: Partial<SimConfig> = {}): Promise<SimServer> {
  // The release's planted speed, then this launch's noise: both scale the costs, so they multiply.
  const config = withLaunchNoise(withVersionedPerformance(resolveSimConfig(partial)), process.pid);
  const version = config.engineVersion;
  const metrics = new SimMetrics();
  const scheduler = new Scheduler<SimStream>(config);
  const prefixCache = new SimPrefixCache(config.prefixCacheSequences, cacheGranularity(config.personality));
  const promptIds = new WeakMap<SimStream, Uint32Array>();
  const active = new Set<SimStream>();
  const startedAt = Math.floor(Date.now() / 1000);
  const monotonicOrigin = monotonicOriginMs();
  let dirty: SimStream[] = [];
  let records: GroundTruthRecord[] = [];
  let arrivalIndex = 0;
  let responseCounter = 0;
  let generatedIds = 0;

  const host: StreamHost = {
    personality: config.personality,
    framing: { crlf: config.sseCrlf, noSpace: config.sseNoSpace },
    keepaliveMs: config.keepaliveMs,
    closeAfterStream: config.closeAfterStream,
    reportCachedTokens: config.reportCachedTokens,
    metrics,
    markDirty: (stream) => dirty.push(stream),
    release: (stream) => {
      active.delete(stream);
      if (stream.sequence !== null) scheduler.abort(stream.sequence);
    },
  };
  const sink: EngineSink<SimStream> = {
    admitted: (sequence, nowMs) => {
      sequence.payload.record.admitted_ms = nowMs;
    },
    token: (sequence) => {
      metrics.generationTokens++;
      // The first token ends the prefill: from now on the prompt is in the cache for others.
      if (sequence.generated === 1) prefixCache.insert(promptIds.get(sequence.payload)!);
      sequence.payload.onToken(sequence.generated - 1);
    },
    finished: (sequence) => sequence.payload.onFinish(),
    prefilled: (tokens) => {
      metrics.promptTokens += tokens;
    },
    flush: () => {
      if (dirty.length === 0) return;
      const batch = dirty;
      dirty = [];
      for (const stream of batch) stream.flush();
    },
  };
  const engine = new EngineLoop(scheduler, sink, config.stepsPerFlush);

  function responseId(kind: EndpointKind): string {
    // Deterministic ids (32 hex digits like uuid4().hex) keep recorded streams diffable across runs.
    const n = responseCounter++;
    const hex = [mix32(n), mix32(n ^ 0x55555555), mix32(n + 0x1234567), mix32(~n)].map((v) => v.toString(16).padStart(8, '0')).join('');
    return engineResponseId(config.personality, kind, n, hex);
  }

  function reject(res: ServerResponse, record: GroundTruthRecord, error: RequestError, headers: Record<string, string> = {}): void {
    record.status = error.status;
    record.end_ms = performance.now();
    sendJson(res, error.status, errorResponseBody(config.personality, error.status, error.message, error.type, error.validation), { 'x-request-id': record.request_id, ...headers });
  }

  function validate(kind: EndpointKind, bodyText: string): SimRequest {
    const request = parseSimRequest(kind, parseBody(bodyText), config);
    if (!fitsKvBudget(config, request.promptTokens, request.maxTokens)) {
      const needed = kvReservation(request.promptTokens, request.maxTokens);
      throw new RequestError(400, `This model's maximum context length is ${config.kvTokens} tokens. However, you requested ${needed} tokens (${request.promptTokens} in the messages, ${request.maxTokens} in the completion). Please reduce the length of the messages or completion.`);
    }
    return request;
  }

  function generate(kind: EndpointKind, res: ServerResponse, bodyText: string, record: GroundTruthRecord): void {
    let request: SimRequest;
    try {
      request = validate(kind, bodyText);
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      metrics.fail(error.status === 404 ? 'not_found' : 'bad_request');
      return reject(res, record, error);
    }
    record.stream = request.stream;
    record.prompt_tokens = request.promptTokens;
    const fault = decideFault(config.faults, config.seed, arrivalIndex++);
    record.fault = fault;
    if (fault !== null) metrics.fault(fault);
    if (fault === 'http500') {
      metrics.fail(fault);
      return reject(res, record, new RequestError(500, 'Simulated internal server error (--faults http500).'));
    }
    if (fault === 'http429') {
      metrics.fail(fault);
      return reject(res, record, new RequestError(429, 'Simulated rate limit (--faults http429); retry later.'), { 'retry-after': '1' });
    }
    if (fault === 'http500_endless') return errorEndless(res, record, () => metrics.fail(fault));
    const natural = request.ignoreEos ? request.maxTokens : naturalLength(request.hash, request.maxTokens, request.minTokens);
    const plan = planGeneration(fault, natural, request.maxTokens, request.ignoreEos ? 'length' : 'stop');
    const view = { kind, id: responseId(kind), created: Math.floor(Date.now() / 1000), model: config.modelName, streamOptions: request.streamOptions };
    if (fault === 'endless') {
      const format = request.stream ? streamFormat(config.personality, host.framing, view) : null;
      return streamEndless(res, record, format, request.hash, () => metrics.fail(fault));
    }
    const cachedTokens = prefixCache.lookup(request.promptIds);
    metrics.prefixQueries += request.promptTokens;
    metrics.prefixHits += cachedTokens;
    const answered = { ...request, hash: answerHash(config.outputFault, request.hash, cachedTokens) };
    const stream = new SimStream({ res, record, request: answered, plan, fault, view, host, cachedTokens });
    promptIds.set(stream, request.promptIds);
    active.add(stream);
    stream.sequence = scheduler.enqueue({
      promptTokens: request.promptTokens,
      cachedTokens,
      maxTokens: request.maxTokens,
      outputTokens: plan.outputTokens,
      stallAfter: plan.stallAfter,
      stallMs: config.stallMs,
      payload: stream,
    });
    engine.wake();
  }

  const getRoutes: Readonly<Record<string, (res: ServerResponse) => void>> = {
    '/health': (res) => sendJson(res, 200, '{"status":"ok"}'),
    '/version': (res) => sendJson(res, 200, JSON.stringify({ version, personality: config.personality })),
    '/v1/models': (res) =>
      sendJson(res, 200, JSON.stringify({
        object: 'list',
        data: [{ id: config.modelName, object: 'model', created: startedAt, owned_by: 'servebench-sim', max_model_len: config.kvTokens }],
      })),
    '/metrics': (res) => {
      const body = metrics.render({ running: scheduler.numRunning, waiting: scheduler.numWaiting, kvUsageRatio: scheduler.kvUsed / config.kvTokens });
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    },
    // Sim-only: no real engine has these. They expose what the sim measured at its write calls.
    '/ground-truth': (res) => {
      const document: GroundTruthDocument = { time_origin_ms: performance.timeOrigin, monotonic_origin_ms: monotonicOrigin, requests: records };
      sendJson(res, 200, JSON.stringify(document));
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    const kind = GENERATION_PATHS[path];
    if (kind !== undefined) {
      if (method !== 'POST') return sendJson(res, 405, errorBody(405, `${method} ${path} is not allowed; use POST`), { allow: 'POST' });
      const header = req.headers['x-request-id'];
      const requestId = typeof header === 'string' && header !== '' ? header : `sim-${generatedIds++}`;
      const bodyText = await readBody(req).catch((error: unknown) => error as Error);
      if (bodyText instanceof Error) {
        const status = bodyText instanceof RequestError ? bodyText.status : 400;
        return sendJson(res, status, errorBody(status, bodyText.message));
      }
      const record = newRecord(requestId, path, config.personality, performance.now());
      records.push(record);
      return generate(kind, res, bodyText, record);
    }
    if (path === '/tokenize' && method === 'POST') {
      const bodyText = await readBody(req).catch((error: unknown) => error as Error);
      try {
        if (bodyText instanceof Error) throw bodyText;
        return sendJson(res, 200, tokenizeResponse(config.personality, parseBody(bodyText), config.kvTokens));
      } catch (error) {
        const status = error instanceof RequestError ? error.status : 400;
        return sendJson(res, status, errorBody(status, (error as Error).message));
      }
    }
    if (path === '/ground-truth' && method === 'DELETE') {
      const deleted = records.length;
      resetGroundTruth();
      return sendJson(res, 200, JSON.stringify({ deleted }));
    }
    const route = getRoutes[path];
    if (route === undefined) return sendJson(res, 404, errorBody(404, `no route for ${method} ${path}`));
    if (method !== 'GET') return sendJson(res, 405, errorBody(405, `${method} ${path} is not allowed; use GET`), { allow: 'GET' });
    return route(res);
  }

  function resetGroundTruth(): void {
    records = [];
    // A reset starts a new run: fault draws restart from arrival 0 so runs are reproducible.
    arrivalIndex = 0;
  }

  const server = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(500, `sim internal error: ${(error as Error).message}`));
      else res.destroy();
    });
  });
  // Node closes idle keep-alive sockets after keepAliveTimeout (0: never) and announces the last
  // request of a connection with Connection: close, as cpp-httplib does at its limit.
  server.keepAliveTimeout = config.idleTimeoutMs;
  server.maxRequestsPerSocket = config.maxRequestsPerConnection;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const bindHost = config.host === '[::1]' ? '::1' : config.host;
  const port = await listen(server, bindHost, config.port);
  const urlHost = bindHost.includes(':') ? `[${bindHost}]` : bindHost;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    config,
    groundTruth: () => records,
    resetGroundTruth,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        engine.stop();
        for (const stream of [...active]) stream.shutdown();
        server.close(() => resolve());
        server.closeAllConnections();
        // closeAllConnections skips sockets still reading a request; nothing may outlive close().
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
