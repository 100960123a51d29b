/**
 * A plain OpenAI-compatible server with neither a role chunk nor usage (the sim's no-usage
 * personality): the fields OpenAI's chat.completion.chunk and text_completion objects document,
 * no engine's extras. It stands for servers that report no counts, so clients must count events
 * or tokenize themselves.
 */
import type { StreamFormat, WireContext } from './wire-format.ts';

export function plainStream(ctx: WireContext): StreamFormat {
  const object = ctx.chat ? 'chat.completion.chunk' : 'text_completion';
  const head = `{"id":${ctx.idJson},"object":"${object}","created":${ctx.created},"model":${ctx.modelJson},"choices":[{"index":0,`;
  const textOpen = ctx.chat ? '"delta":{"content":' : '"text":';
  const textEnd = ctx.chat ? '}' : '';
  const contentOpen = ctx.open + head + textOpen;
  return {
    rolePrelude: '',
    keepalive: ctx.keepalive,
    tokensPerEvent: () => 1,
    content: (textJson) => `${contentOpen}${textJson}${textEnd},"logprobs":null,"finish_reason":null}]}${ctx.close}`,
    lastContent: (textJson, reason) => (reason === 'length' ? `${contentOpen}${textJson}${textEnd},"logprobs":null,"finish_reason":"length"}]}${ctx.close}` : null),
    finish: (reason, _usage, finishAlreadySent) =>
      (finishAlreadySent ? '' : ctx.event(`${head}${ctx.chat ? '"delta":{}' : '"text":""'},"logprobs":null,"finish_reason":"${reason}"}]}`)) + ctx.event('[DONE]'),
    malformed: () => `${contentOpen}"sim-malformed${ctx.close}`,
    error: (code, message) => ctx.event(JSON.stringify({ error: { message, type: code >= 500 ? 'server_error' : 'invalid_request_error', code } })) + ctx.event('[DONE]'),
  };
}
