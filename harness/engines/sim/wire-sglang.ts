/**
 * SGLang's stream, as its serving code writes it (github.com/sgl-project/sglang, main-branch
 * commits of the 0.5 series; fleet/releases.json knows 0.5.23):
 *
 * - chat: python/sglang/srt/entrypoints/openai/serving_chat.py @0c078e6f, _generate_chat_stream.
 *   Chunks are model_dump_json() with no exclusions, so every field of the classes appears, null
 *   when unset (protocol.py @004c82e0): ChatCompletionStreamResponse id, object, created, model,
 *   choices, usage (sglext dropped by its serializer when None); ChatCompletionResponseStreamChoice
 *   index, delta, logprobs, finish_reason, matched_stop; DeltaMessage role, content,
 *   reasoning_content, tool_calls (hidden_states dropped when None).
 *   - the id is the request's rid, uuid4().hex with no prefix; created is int(time.time());
 *   - first chunk: delta DeltaMessage(role="assistant", content="");
 *   - text chunks carry finish_reason=None even for the last token: the finish reason comes after
 *     the loop, in its own chunk with an empty DeltaMessage() (all four fields null) and
 *     matched_stop (the EOS token id for a natural stop, None for length), usage=None;
 *   - usage only with stream_options.include_usage true (StreamOptions.include_usage defaults to
 *     False): a chunk with choices=[]; UsageInfo prompt_tokens, total_tokens, completion_tokens,
 *     prompt_tokens_details, reasoning_tokens;
 *   - "data: [DONE]". An error (ValueError in the loop) is one event,
 *     create_streaming_error_response(str(e)) (serving_base.py @c5695a4b): {"error": ErrorResponse}
 *     with its defaults type "BadRequestError", code 400, whatever failed; then [DONE].
 * - completions: serving_completions.py @7190e6fe, generate_stream_resp: one chunk per engine
 *   output, finish_reason and matched_stop on the output that carries them (the last token's for
 *   length; for EOS an output with no new text); CompletionResponseStreamChoice index, text,
 *   logprobs, finish_reason, matched_stop; the usage chunk is dumped with exclude_none.
 */
import type { FinishReason } from './faults.ts';
import { SIM_EOS_TOKEN_ID, flatErrorBody, type StreamFormat, type UsageCounts, type WireContext } from './wire-format.ts';

function usageFields(usage: UsageCounts): string {
  return `"prompt_tokens":${usage.promptTokens},"total_tokens":${usage.promptTokens + usage.completionTokens},"completion_tokens":${usage.completionTokens}`;
}

const matchedStop = (reason: FinishReason): string => (reason === 'stop' ? String(SIM_EOS_TOKEN_ID) : 'null');

export function sglangStream(ctx: WireContext): StreamFormat {
  const object = ctx.chat ? 'chat.completion.chunk' : 'text_completion';
  const head = `{"id":${ctx.idJson},"object":"${object}","created":${ctx.created},"model":${ctx.modelJson},"choices":[`;
  const usageRequested = ctx.streamOptions?.includeUsage === true;
  const finishChoice = (textJson: string, reason: FinishReason): string =>
    ctx.chat
      ? `{"index":0,"delta":{"role":null,"content":null,"reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":"${reason}","matched_stop":${matchedStop(reason)}}`
      : `{"index":0,"text":${textJson},"logprobs":null,"finish_reason":"${reason}","matched_stop":${matchedStop(reason)}}`;
  const contentOpen = ctx.open + head + (ctx.chat ? '{"index":0,"delta":{"role":null,"content":' : '{"index":0,"text":');
  const contentClose = `${ctx.chat ? ',"reasoning_content":null,"tool_calls":null}' : ''},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}${ctx.close}`;
  // prompt_tokens_details carries cached_tokens with --enable-cache-report; chat dumps it null otherwise, completions drop it.
  const details = (usage: UsageCounts): string =>
    usage.cachedReported ? `,"prompt_tokens_details":{"cached_tokens":${usage.cachedTokens}}` : ctx.chat ? ',"prompt_tokens_details":null' : '';
  const usageChunk = (usage: UsageCounts): string => ctx.event(`${head}],"usage":{${usageFields(usage)}${details(usage)},"reasoning_tokens":0}}`);
  return {
    rolePrelude: ctx.chat ? ctx.event(`${head}{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`) : '',
    keepalive: ctx.keepalive,
    tokensPerEvent: () => 1,
    content: (textJson) => contentOpen + textJson + contentClose,
    // Completions put a length finish on the last token's output; chat never does.
    lastContent: (textJson, reason) => (!ctx.chat && reason === 'length' ? ctx.event(`${head}${finishChoice(textJson, reason)}],"usage":null}`) : null),
    finish: (reason, usage, finishAlreadySent) =>
      (finishAlreadySent ? '' : ctx.event(`${head}${finishChoice('""', reason)}],"usage":null}`)) + (usageRequested ? usageChunk(usage) : '') + ctx.event('[DONE]'),
    malformed: () => `${contentOpen}"sim-malformed${ctx.close}`,
    error: (_code, message) => ctx.event(`{"error":${flatErrorBody(400, message, 'BadRequestError')}}`) + ctx.event('[DONE]'),
  };
}
