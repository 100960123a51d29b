/**
 * Before measuring: ask the server itself how many tokens a sample of the prompts has, when it
 * offers a tokenize endpoint (vLLM, SGLang and TRT-LLM style POST /tokenize with prompt or
 * messages; llama.cpp style POST /tokenize with content, a conversation rendered by its POST
 * /apply-template first). A mismatch means the prompts are not the
 * lengths the scenario declares on this server (another tokenizer or chat template): the rate is
 * recorded, so a reader can tell.
 */
import { request } from 'undici';
import type { ChatMessage } from '../tokenizer/hf-tokenizer.ts';

export interface LengthSample {
  readonly input: { readonly prompt: string } | { readonly messages: readonly ChatMessage[] };
  readonly inputTokens: number;
}

export interface LengthCheck {
  /** 'vllm' ({prompt|messages} → count) or 'llamacpp' ({content} → tokens); null: no endpoint. */
  readonly style: 'vllm' | 'llamacpp' | null;
  readonly checked: number;
  readonly mismatched: number;
  /** A few mismatches, as (built length, server's count). */
  readonly examples: Array<{ expected: number; server: number }>;
}

const EXAMPLES = 5;

async function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await request(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await response.body.text();
  try {
    return { status: response.statusCode, json: JSON.parse(text) };
  } catch {
    return { status: response.statusCode, json: null };
  }
}

/** vLLM style answers with a count; llama.cpp style with the token list (non-empty for non-empty text). */
function countOf(json: unknown, style: 'vllm' | 'llamacpp'): number | null {
  const body = json as { count?: unknown; tokens?: unknown } | null;
  if (style === 'vllm') return typeof body?.count === 'number' && body.count > 0 ? body.count : null;
  return Array.isArray(body?.tokens) && body.tokens.length > 0 ? body.tokens.length : null;
}

async function serverCount(url: string, model: string, headers: Record<string, string>, sample: LengthSample, style: 'vllm' | 'llamacpp'): Promise<number | null> {
  if (style === 'llamacpp') {
    let content: string;
    if ('prompt' in sample.input) content = sample.input.prompt;
    else {
      // llama.cpp's /tokenize takes text: render the conversation with the server's own template
      // first (POST /apply-template, which drops the template's BOS text as a chat request does).
      const rendered = await postJson(url.replace(/\/tokenize$/, '/apply-template'), headers, { messages: sample.input.messages });
      const prompt = (rendered.json as { prompt?: unknown } | null)?.prompt;
      if (rendered.status !== 200 || typeof prompt !== 'string') return null;
      content = prompt;
    }
    // As llama-server tokenizes a prompt: special tokens added and special-token text parsed.
    const { status, json } = await postJson(url, headers, { content, add_special: true, parse_special: true });
    return status === 200 ? countOf(json, 'llamacpp') : null;
  }
  const body =
    'prompt' in sample.input
      ? { model, prompt: sample.input.prompt, add_special_tokens: true }
      : { model, messages: sample.input.messages, add_generation_prompt: true };
  // llama.cpp answers a body without "content" with 200 {"tokens": []}: no count, so not this style.
  const { status, json } = await postJson(url, headers, body);
  return status === 200 ? countOf(json, 'vllm') : null;
}

export async function verifyPromptLengths(
  url: string,
  model: string,
  headers: Record<string, string>,
  samples: readonly LengthSample[],
): Promise<LengthCheck> {
  const none: LengthCheck = { style: null, checked: 0, mismatched: 0, examples: [] };
  if (samples.length === 0) return none;
  let style: 'vllm' | 'llamacpp' | null = null;
  for (const candidate of ['vllm', 'llamacpp'] as const) {
    try {
      if ((await serverCount(url, model, headers, samples[0]!, candidate)) !== null) {
        style = candidate;
        break;
      }
    } catch {
      return none;
    }
  }
  if (style === null) return none;
  let checked = 0;
  let mismatched = 0;
  const examples: LengthCheck['examples'] = [];
  for (const sample of samples) {
    const server = await serverCount(url, model, headers, sample, style).catch(() => null);
    if (server === null) continue;
    checked += 1;
    if (server !== sample.inputTokens) {
      mismatched += 1;
      if (examples.length < EXAMPLES) examples.push({ expected: sample.inputTokens, server });
    }
  }
  return { style, checked, mismatched, examples };
}
