/**
 * Before measuring: ask the server itself how many tokens a sample of the prompts has, when it
 * offers a tokenize endpoint (vLLM, SGLang and TRT-LLM style POST /tokenize with prompt or
 * messages; llama.cpp style POST /tokenize with content, a conversation rendered by its POST
 * /apply-template first). A mismatch means the prompts are not the
 * lengths the scenario declares on this server (another tokenizer or chat template): the rate is
 * recorded, so a reader can tell.
 */
import type { ChatMessage } from '../tokenizer/hf-tokenizer.ts';
import { serverCalls, type ServerCalls, type ServerStyle } from '../tokenizer/server-calls.ts';

export interface LengthSample {
  readonly input: { readonly prompt: string } | { readonly messages: readonly ChatMessage[] };
  readonly inputTokens: number;
}

export interface LengthCheck {
  /** 'vllm' ({prompt|messages} → count) or 'llamacpp' ({content} → tokens); null: no endpoint. */
  readonly style: ServerStyle | null;
  readonly checked: number;
  readonly mismatched: number;
  /** A few mismatches, as (built length, server's count). */
  readonly examples: Array<{ expected: number; server: number }>;
}

const EXAMPLES = 5;

/** The server's count of one sample, or null when it cannot tell (llama.cpp's /tokenize takes text: a conversation is rendered by its /apply-template first). */
function serverCount(calls: ServerCalls, sample: LengthSample): Promise<number | null> {
  return 'prompt' in sample.input ? calls.countPrompt(sample.input.prompt) : calls.countChat(sample.input.messages);
}

export async function verifyPromptLengths(
  url: string,
  model: string,
  headers: Record<string, string>,
  samples: readonly LengthSample[],
): Promise<LengthCheck> {
  const none: LengthCheck = { style: null, checked: 0, mismatched: 0, examples: [] };
  if (samples.length === 0) return none;
  const base = url.replace(/\/tokenize$/, '');
  let style: ServerStyle | null = null;
  let calls: ServerCalls | null = null;
  for (const candidate of ['vllm', 'llamacpp'] as const) {
    try {
      const tried = serverCalls(candidate, base, model, headers);
      if ((await serverCount(tried, samples[0]!)) !== null) {
        style = candidate;
        calls = tried;
        break;
      }
    } catch {
      return none;
    }
  }
  if (style === null || calls === null) return none;
  let checked = 0;
  let mismatched = 0;
  const examples: LengthCheck['examples'] = [];
  for (const sample of samples) {
    const server = await serverCount(calls, sample).catch(() => null);
    if (server === null) continue;
    checked += 1;
    if (server !== sample.inputTokens) {
      mismatched += 1;
      if (examples.length < EXAMPLES) examples.push({ expected: sample.inputTokens, server });
    }
  }
  return { style, checked, mismatched, examples };
}
