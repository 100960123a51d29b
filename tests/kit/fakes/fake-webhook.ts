/**
 * A fake Slack incoming webhook for startFakeServer(): POST JSON to /services/<team>/<channel>/<token>,
 * recorded, answered 200 with the body `ok` as Slack does; a body that is not JSON gets 400
 * `invalid_payload`, one with neither text nor blocks 400 `no_text`, another path 404
 * `no_service` (api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks;
 * api.slack.com/messaging/webhooks). `failNext` queues answers such as a 429 with retry-after.
 */
import type { FakeHandler } from './fake-server.ts';

export const WEBHOOK_PATH = '/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX';

export interface FakeWebhook {
  readonly handler: FakeHandler;
  /** The JSON bodies accepted, in order. */
  readonly posts: unknown[];
  readonly failNext: Array<{ status: number; body: string; headers?: Record<string, string> }>;
}

export function createFakeWebhook(): FakeWebhook {
  const posts: unknown[] = [];
  const failNext: FakeWebhook['failNext'] = [];
  const handler: FakeHandler = (request, response) => {
    if (!request.url.startsWith('/services/')) return false;
    const reply = (status: number, text: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
      response.end(text);
      return true;
    };
    if (request.method !== 'POST') return reply(405, 'invalid_method');
    if (request.url !== WEBHOOK_PATH) return reply(404, 'no_service');
    const failure = failNext.shift();
    if (failure) return reply(failure.status, failure.body, failure.headers);
    let payload: unknown;
    try {
      payload = JSON.parse(request.body);
    } catch {
      return reply(400, 'invalid_payload');
    }
    const message = payload as { text?: unknown; blocks?: unknown };
    if (typeof message.text !== 'string' && !Array.isArray(message.blocks)) return reply(400, 'no_text');
    posts.push(payload);
    return reply(200, 'ok');
  };
  return { handler, posts, failNext };
}
