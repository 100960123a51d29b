/**
 * vLLM's stream, as its serving code writes it (github.com/vllm-project/vllm, read at the commits
 * named; fleet/releases.json's newest known release is 0.33.0, and the stored history could not be
 * matched to release tags, so these are main-branch commits of that period):
 *
 * - chat: vllm/entrypoints/openai/chat_completion/serving.py @006c49d4,
 *   chat_completion_stream_generator. Every chunk is ChatCompletionStreamResponse.model_dump_json(
 *   exclude_unset=True): only fields the code passes appear, a None it passes appears as null, in
 *   the class's field order (chat_completion/protocol.py @002032ee: ChatCompletionStreamResponse
 *   id, object, created, model, choices, usage, system_fingerprint, prompt_token_ids, prompt_text;
 *   ChatCompletionResponseStreamChoice index, delta, logprobs, finish_reason, stop_reason, token_ids).
 *   - first chunk: delta DeltaMessage(role, content="") with logprobs=None, finish_reason=None, and
 *     prompt_token_ids=None, prompt_text=None on the response (passed explicitly, so null);
 *   - each output: delta DeltaMessage(content=delta_text), token_ids=None; the output that carries
 *     the finish reason is the chunk of the token that ended generation (its text; "" for EOS,
 *     which detokenizes to nothing) with finish_reason and stop_reason (None for length and EOS);
 *   - usage only when the request sent stream_options (StreamOptions.include_usage defaults to
 *     True there; no stream_options, no usage): a last chunk with choices=[] dumped with
 *     exclude_unset and exclude_none; UsageInfo field order prompt_tokens, total_tokens,
 *     completion_tokens (vllm/entrypoints/serve/engine/protocol.py @f1bf7bd0);
 *   - then "data: [DONE]". An error inside the generator is one event,
 *     create_streaming_error_response: ErrorResponse{error: ErrorInfo{message, type, param, code}},
 *     and [DONE] still follows.
 * - completions: vllm/entrypoints/openai/completion/serving.py @030ea52e, completion_stream_generator:
 *   CompletionResponseStreamChoice(index, text, logprobs, finish_reason, stop_reason,
 *   prompt_token_ids, token_ids) on every chunk, all passed (null when unset), finish on the last
 *   token as for chat; the usage chunk is dumped with exclude_none.
 */
import type { FinishReason } from './faults.ts';
import type { StreamFormat, UsageCounts, WireContext } from './wire-format.ts';

/** prompt_tokens_details (PromptTokenUsageInfo: cached_tokens) only with --enable-prompt-tokens-details, dumped after completion_tokens. */
export function vllmUsageJson(usage: UsageCounts): string {
  const details = usage.cachedReported ? `,"prompt_tokens_details":{"cached_tokens":${usage.cachedTokens}}` : '';
  return `{"prompt_tokens":${usage.promptTokens},"total_tokens":${usage.promptTokens + usage.completionTokens},"completion_tokens":${usage.completionTokens}${details}}`;
}

export function vllmStream(ctx: WireContext): StreamFormat {
  const object = ctx.chat ? 'chat.completion.chunk' : 'text_completion';
  const head = `{"id":${ctx.idJson},"object":"${object}","created":${ctx.created},"model":${ctx.modelJson},"choices":[`;
  const textOpen = ctx.chat ? '{"index":0,"delta":{"content":' : '{"index":0,"text":';
  const textClose = ctx.chat ? '},"logprobs":null' : ',"logprobs":null';
  const ids = ctx.chat ? ',"token_ids":null' : ',"prompt_token_ids":null,"token_ids":null';
  // finish_reason and stop_reason: null both while streaming (completions pass both, chat only the first).
  const running = ctx.chat ? ',"finish_reason":null' : ',"finish_reason":null,"stop_reason":null';
  const contentOpen = ctx.open + head + textOpen;
  const contentClose = `${textClose}${running}${ids}}]}${ctx.close}`;
  const finishing = (textJson: string, reason: FinishReason): string =>
    ctx.event(`${head}${textOpen}${textJson}${textClose},"finish_reason":"${reason}","stop_reason":null${ids}}]}`);
  const usageRequested = ctx.streamOptions !== null && ctx.streamOptions.includeUsage !== false;
  return {
    rolePrelude: ctx.chat ? ctx.event(`${head}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"prompt_token_ids":null,"prompt_text":null}`) : '',
    keepalive: ctx.keepalive,
    tokensPerEvent: () => 1,
    content: (textJson) => contentOpen + textJson + contentClose,
    // A length stop rides on the last token's chunk; an EOS is a token of its own, with no text.
    lastContent: (textJson, reason) => (reason === 'length' ? finishing(textJson, reason) : null),
    finish: (reason, usage, finishAlreadySent) =>
      (finishAlreadySent ? '' : finishing('""', reason)) +
      (usageRequested ? ctx.event(`${head}],"usage":${vllmUsageJson(usage)}}`) : '') +
      ctx.event('[DONE]'),
    malformed: () => `${contentOpen}"sim-malformed${ctx.close}`,
    error: (code, message) => ctx.event(vllmErrorBody(code, message, code >= 500 ? 'InternalServerError' : 'BadRequestError')) + ctx.event('[DONE]'),
  };
}

/** ErrorResponse(error=ErrorInfo(message, type, param, code)): vLLM's error body and error event. */
export function vllmErrorBody(status: number, message: string, type: string): string {
  return `{"error":{"message":${JSON.stringify(message)},"type":${JSON.stringify(type)},"param":null,"code":${status}}}`;
}
