/**
 * TensorRT-LLM's stream (trtllm-serve), as its serving code writes it (github.com/NVIDIA/TensorRT-LLM,
 * main-branch commits of the 1.2 period; fleet/releases.json knows 1.2.1):
 *
 * - chat: tensorrt_llm/serve/postprocess_handlers.py @01bf1923, chat_stream_post_processor.
 *   Chunks are model_dump_json(exclude_none=True) (openai_protocol.py @0076e939:
 *   ChatCompletionStreamResponse id, object, created, model, choices, usage;
 *   ChatCompletionResponseStreamChoice index, delta, logprobs, finish_reason, stop_reason,
 *   avg_decoded_tokens_per_iter; DeltaMessage role, content, reasoning_content, reasoning, tool_calls).
 *   - the id is "chatcmpl-" and the executor's integer request id; created is set once per stream;
 *   - first chunk: DeltaMessage(role="assistant") alone (content None, so absent), written as
 *     f"data: {...} \n\n": with a space before the blank line, on that chunk only;
 *   - text chunks: DeltaMessage(content, reasoning_content=""): without a reasoning parser the
 *     reasoning text is "" (apply_reasoning_parser), not None, so it is there;
 *   - the output that carries the finish reason is the last token's chunk (its text; "" for EOS),
 *     finish_reason set, stop_reason None (absent) for length and EOS;
 *   - usage when the request sent stream_options (include_usage defaults to True;
 *     openai_protocol.py StreamOptions): choices=[] dumped with no exclusions, so
 *     prompt_tokens_details={"cached_tokens": 0} is there;
 *   - "data: [DONE]" (openai_server.py @00057725, chat_stream_generator). An exception while
 *     streaming is logged and re-raised: no error event, the response is aborted.
 * - completions: completion_stream_post_processor: CompletionStreamResponse.model_dump_json(
 *   exclude_unset=False), every field (CompletionResponseStreamChoice index, text, token_ids,
 *   logprobs, finish_reason, stop_reason, avg_decoded_tokens_per_iter; usage null); the id is
 *   "cmpl-" and the request id.
 * - errors: ErrorResponse object, message, type, param, code (create_error_response), except a
 *   request the pydantic model refuses: the RequestValidationError handler answers
 *   {"error": str(exc)} (a string), status 400 (request.ts builds that string).
 */
import type { FinishReason } from './faults.ts';
import type { StreamFormat, UsageCounts, WireContext } from './wire-format.ts';

function usageJson(usage: UsageCounts): string {
  return `{"prompt_tokens":${usage.promptTokens},"total_tokens":${usage.promptTokens + usage.completionTokens},"completion_tokens":${usage.completionTokens},"prompt_tokens_details":{"cached_tokens":0}}`;
}

export function trtllmStream(ctx: WireContext): StreamFormat {
  const object = ctx.chat ? 'chat.completion.chunk' : 'text_completion';
  const head = `{"id":${ctx.idJson},"object":"${object}","created":${ctx.created},"model":${ctx.modelJson},"choices":[`;
  const textOpen = ctx.chat ? '{"index":0,"delta":{"content":' : '{"index":0,"text":';
  const chunkEnd = ctx.chat ? '}]}' : ',"avg_decoded_tokens_per_iter":null}],"usage":null}';
  const textClose = (reason: FinishReason | null): string =>
    ctx.chat
      ? `,"reasoning_content":""}${reason === null ? '' : `,"finish_reason":"${reason}"`}`
      : `,"token_ids":null,"logprobs":null,"finish_reason":${reason === null ? 'null' : `"${reason}"`},"stop_reason":null`;
  const contentOpen = ctx.open + head + textOpen;
  const contentClose = textClose(null) + chunkEnd + ctx.close;
  const finishing = (textJson: string, reason: FinishReason): string => ctx.event(head + textOpen + textJson + textClose(reason) + chunkEnd);
  const usageRequested = ctx.streamOptions !== null && ctx.streamOptions.includeUsage !== false;
  return {
    rolePrelude: ctx.chat ? `${ctx.open}${head}{"index":0,"delta":{"role":"assistant"}}]} ${ctx.close}` : '',
    keepalive: ctx.keepalive,
    tokensPerEvent: () => 1,
    content: (textJson) => contentOpen + textJson + contentClose,
    lastContent: (textJson, reason) => (reason === 'length' ? finishing(textJson, reason) : null),
    finish: (reason, usage, finishAlreadySent) =>
      (finishAlreadySent ? '' : finishing('""', reason)) + (usageRequested ? ctx.event(`${head}],"usage":${usageJson(usage)}}`) : '') + ctx.event('[DONE]'),
    malformed: () => `${contentOpen}"sim-malformed${ctx.close}`,
    error: () => null,
  };
}
