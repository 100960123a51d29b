/**
 * The embedded CPU engine: llama.cpp (through node-llama-cpp) behind a thin OpenAI-compatible
 * server, so the main job benchmarks a real LLM engine with no GPU and no Docker. Concurrent
 * requests each get a context sequence; node-llama-cpp evaluates the sequences of one context in
 * shared batches (continuous batching); requests beyond the sequences wait in a FIFO queue.
 * Streams look like vLLM's (role chunk for chat, usage-only chunk with include_usage).
 *
 * Prompts become tokens as llama-server makes them from the same GGUF file (llamaServerPrompts:
 * the GGUF's chat template, llama.cpp's BOS rule, special-token text parsed), and /tokenize counts
 * those same tokens: so a prompt built to N tokens with the model's tokenizer is N tokens here,
 * and a run of this engine measures the workload a llama.cpp run of the same file measures.
 * (Until 2026-12-03 it rendered a fixed "role: content" format whatever the GGUF's template: its
 * chat results of 2026-12-02 were 2–28 tokens shorter than the prompts were built to.)
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getLlama, type LlamaContext, type LlamaContextSequence, type LlamaModel, type Token } from 'node-llama-cpp';
import { SERVEBENCH_VERSION } from '../../lib/version.ts';
import { llamaServerPrompts, type TokenizerMetadata } from '../../measure/tokenizer/gguf-tokenizer.ts';
import type { ChatMessage } from '../../measure/tokenizer/hf-tokenizer.ts';
import { TextStream } from './text-stream.ts';

export interface EmbeddedConfig {
  readonly modelPath: string;
  readonly modelName: string;
  readonly host: string;
  readonly port: number;
  /** Concurrent sequences (requests decoded together). */
  readonly parallel: number;
  /** Context tokens per sequence. */
  readonly contextPerSequence: number;
  readonly threads: number;
}

export interface EmbeddedServer {
  readonly url: string;
  close(): Promise<void>;
}

interface Counters {
  running: number;
  promptTokens: number;
  generationTokens: number;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function errorBody(status: number, message: string): unknown {
  return { error: { message, type: status === 404 ? 'NotFoundError' : 'BadRequestError', code: status } };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('the body must be a JSON object');
  return value as Record<string, unknown>;
}

/** What llama-server renders for a GGUF without a chat template of its own (common/chat.cpp, CHATML_TEMPLATE_SRC). */
const CHATML_TEMPLATE =
  "{%- for message in messages -%}{{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' -}}{%- endfor -%}{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n' -}}{%- endif -%}";

/** The messages of a request body, or null when it is not a list of {role, content} strings. */
function chatMessages(value: unknown): ChatMessage[] | null {
  if (!Array.isArray(value)) return null;
  const valid = value.every((m) => m !== null && typeof m === 'object' && typeof (m as { role?: unknown }).role === 'string' && typeof (m as { content?: unknown }).content === 'string');
  return valid ? (value as ChatMessage[]).map(({ role, content }) => ({ role, content })) : null;
}

/** Sequences handed out in arrival order; a request waits for one when all are busy. */
class SequencePool {
  private readonly all: readonly LlamaContextSequence[];
  private readonly free: LlamaContextSequence[];
  private readonly waiters: Array<(sequence: LlamaContextSequence) => void> = [];
  constructor(context: LlamaContext, count: number) {
    this.all = Array.from({ length: count }, () => context.getSequence());
    this.free = [...this.all];
  }
  get waiting(): number {
    return this.waiters.length;
  }
  /** Tokens held in the context's KV cache now (a released sequence is cleared, so it holds none). */
  get kvTokens(): number {
    return this.all.reduce((sum, sequence) => sum + sequence.nextTokenIndex, 0);
  }
  acquire(): Promise<LlamaContextSequence> {
    const sequence = this.free.pop();
    return sequence ? Promise.resolve(sequence) : new Promise((resolve) => this.waiters.push(resolve));
  }
  async release(sequence: LlamaContextSequence): Promise<void> {
    await sequence.clearHistory();
    const waiter = this.waiters.shift();
    if (waiter) waiter(sequence);
    else this.free.push(sequence);
  }
}

export async function startEmbeddedServer(config: EmbeddedConfig): Promise<EmbeddedServer> {
  const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: 'error' as never });
  const model: LlamaModel = await llama.loadModel({ modelPath: config.modelPath });
  const context = await model.createContext({
    contextSize: config.contextPerSequence * config.parallel,
    sequences: config.parallel,
    threads: config.threads,
  });
  const pool = new SequencePool(context, config.parallel);
  const metadata = (model.fileInfo.metadata as { tokenizer?: TokenizerMetadata }).tokenizer ?? {};
  const prompts = llamaServerPrompts(model, { ...metadata, chat_template: metadata.chat_template ?? CHATML_TEMPLATE }, config.modelName);
  /** The tokens llama-server evaluates for a chat request (its template can refuse the messages: a 400). */
  const chatTokens = (messages: readonly ChatMessage[]): Token[] | string => {
    try {
      return prompts.chatIds(messages)! as Token[];
    } catch (error) {
      return `the chat template cannot render these messages: ${(error as Error).message}`;
    }
  };
  const vocabularySize = metadata.ggml?.tokens?.length ?? 0;
  const counters: Counters = { running: 0, promptTokens: 0, generationTokens: 0 };
  const created = Math.floor(Date.now() / 1000);
  let nextId = 0;

  async function generate(kind: 'chat' | 'completion', body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    if (typeof body['model'] === 'string' && body['model'] !== config.modelName) {
      return json(res, 404, errorBody(404, `The model \`${body['model']}\` does not exist.`));
    }
    let tokens: Token[];
    if (kind === 'chat') {
      const messages = chatMessages(body['messages']);
      if (messages === null) return json(res, 400, errorBody(400, '"messages" must be a list of {role, content}'));
      const rendered = chatTokens(messages);
      if (typeof rendered === 'string') return json(res, 400, errorBody(400, rendered));
      tokens = rendered;
    } else {
      if (typeof body['prompt'] !== 'string') return json(res, 400, errorBody(400, '"prompt" must be a string'));
      tokens = prompts.promptIds(body['prompt']) as Token[];
    }
    const maxTokens = typeof body['max_tokens'] === 'number' ? body['max_tokens'] : typeof body['max_completion_tokens'] === 'number' ? body['max_completion_tokens'] : 16;
    const ignoreEos = body['ignore_eos'] === true;
    const temperature = typeof body['temperature'] === 'number' ? body['temperature'] : 1;
    const stream = body['stream'] === true;
    const includeUsage = (body['stream_options'] as { include_usage?: unknown } | undefined)?.include_usage === true;
    if (tokens.length + maxTokens > config.contextPerSequence) {
      return json(res, 400, errorBody(400, `This model's maximum context length is ${config.contextPerSequence} tokens; the request needs ${tokens.length + maxTokens}.`));
    }
    const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${(nextId++).toString(16).padStart(8, '0')}`;
    const object = kind === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    const chunk = (choice: Record<string, unknown>): string =>
      `data: ${JSON.stringify({ id, object, created, model: config.modelName, choices: [{ index: 0, ...choice }] })}\n\n`;
    /** A content (or, with finish set, the final) chunk in the shape of this API. */
    const textChunk = (content: string, finish: string | null = null): string =>
      chunk(kind === 'chat' ? { delta: finish === null ? { content } : {}, logprobs: null, finish_reason: finish } : { text: content, logprobs: null, finish_reason: finish });
    let aborted = false;
    res.on('close', () => {
      if (!res.writableFinished) aborted = true;
    });

    const sequence = await pool.acquire();
    counters.running += 1;
    counters.promptTokens += tokens.length;
    let produced = 0;
    let text = '';
    let finish: 'length' | 'stop' = 'length';
    try {
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.flushHeaders();
        if (kind === 'chat') res.write(chunk({ delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }));
      }
      // The prompt's last tokens tell the detokenizer whether the first piece keeps its leading space
      // (a SentencePiece "▁word"): decoded alone it would drop it, where llama-server, which
      // renders each token's piece, keeps it.
      const context = tokens.slice(-8);
      const decoder = new TextStream((ids) => model.detokenize(ids as never, false, context as never));
      const eos = model.tokens.eos;
      for await (const token of sequence.evaluate(tokens, { temperature })) {
        if (aborted) break;
        if (!ignoreEos && token === eos) {
          finish = 'stop';
          break;
        }
        produced += 1;
        counters.generationTokens += 1;
        const delta = decoder.push(token);
        text += delta;
        if (stream && delta !== '') res.write(textChunk(delta));
        if (produced >= maxTokens) break;
      }
      const rest = decoder.flush();
      text += rest;
      if (stream && rest !== '' && !aborted) res.write(textChunk(rest));
      const usage = { prompt_tokens: tokens.length, completion_tokens: produced, total_tokens: tokens.length + produced };
      if (aborted) return;
      if (stream) {
        res.write(textChunk('', finish));
        if (includeUsage) res.write(`data: ${JSON.stringify({ id, object, created, model: config.modelName, choices: [], usage })}\n\n`);
        res.end('data: [DONE]\n\n');
      } else {
        const choice = kind === 'chat' ? { message: { role: 'assistant', content: text } } : { text };
        json(res, 200, { id, object: kind === 'chat' ? 'chat.completion' : 'text_completion', created, model: config.modelName, choices: [{ index: 0, ...choice, finish_reason: finish }], usage });
      }
    } finally {
      counters.running -= 1;
      await pool.release(sequence);
    }
  }

  const metric = (name: string, type: 'gauge' | 'counter', help: string, value: number): string =>
    `# HELP servebench_embedded_${name} ${help}\n# TYPE servebench_embedded_${name} ${type}\nservebench_embedded_${name} ${value}\n`;
  const metrics = (): string =>
    metric('num_requests_running', 'gauge', 'Requests being decoded.', counters.running) +
    metric('num_requests_waiting', 'gauge', 'Requests waiting for a sequence.', pool.waiting) +
    // llama.cpp's own kv_cache_usage_ratio (older llama-server builds): cells used / context size.
    metric('kv_cache_usage_ratio', 'gauge', 'Fraction of the context (KV cache) holding tokens.', pool.kvTokens / context.contextSize) +
    metric('prompt_tokens_total', 'counter', 'Prompt tokens processed.', counters.promptTokens) +
    metric('generation_tokens_total', 'counter', 'Tokens generated.', counters.generationTokens);

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const handle = async (): Promise<void> => {
      if (req.method === 'GET' && path === '/health') return json(res, 200, { status: 'ok' });
      if (req.method === 'GET' && path === '/version') return json(res, 200, { version: `${SERVEBENCH_VERSION}-embedded` });
      if (req.method === 'GET' && path === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: config.modelName, object: 'model', created, owned_by: 'servebench-embedded' }] });
      if (req.method === 'GET' && path === '/metrics') {
        const body = metrics();
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
        return void res.end(body);
      }
      if (req.method === 'POST' && (path === '/v1/completions' || path === '/v1/chat/completions' || path === '/tokenize' || path === '/detokenize')) {
        let body: Record<string, unknown>;
        try {
          body = await readJson(req);
        } catch (error) {
          return json(res, 400, errorBody(400, `invalid JSON body: ${(error as Error).message}`));
        }
        // vLLM's shapes: /tokenize {prompt, add_special_tokens (default true)} or {messages} (with the
        // generation prompt, as a chat request evaluates it) → {count, tokens}; /detokenize {tokens} → {prompt}.
        if (path === '/tokenize') {
          let ids: readonly number[];
          if (typeof body['prompt'] === 'string') {
            ids = body['add_special_tokens'] === false ? prompts.tokenizer.encode(body['prompt'], false) : prompts.promptIds(body['prompt']);
          } else {
            const messages = chatMessages(body['messages']);
            if (messages === null) return json(res, 400, errorBody(400, 'give "prompt" or "messages" (a list of {role, content})'));
            const rendered = chatTokens(messages);
            if (typeof rendered === 'string') return json(res, 400, errorBody(400, rendered));
            ids = rendered;
          }
          return json(res, 200, { count: ids.length, max_model_len: config.contextPerSequence, tokens: [...ids] });
        }
        if (path === '/detokenize') {
          const tokens = body['tokens'];
          if (!Array.isArray(tokens) || !tokens.every((t) => Number.isInteger(t) && t >= 0 && t < vocabularySize)) {
            return json(res, 400, errorBody(400, '"tokens" must be a list of token ids'));
          }
          return json(res, 200, { prompt: model.detokenize(tokens as Token[]) });
        }
        return generate(path === '/v1/completions' ? 'completion' : 'chat', body, res);
      }
      return json(res, 404, errorBody(404, `no route for ${req.method} ${path}`));
    };
    handle().catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, errorBody(500, (error as Error).message));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.host}:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await context.dispose();
      await model.dispose();
    },
  };
}
