/**
 * Answers that never end, as broken servers have sent them. --faults endless: valid tokens past
 * max_tokens for ever (an engine that lost its stop condition; one such server took a client's
 * single request to 1.26 GB in 40 s). --faults http500_endless: a 500 whose error body has no end
 * (a proxy gone wrong; the client used to wait it out and call it a timeout). Written as fast as
 * the client reads, until it hangs up, or until ENDLESS_BYTES, so that a client that never hangs
 * up still sees an end. Neither goes through the engine: no step cost, no KV, no batch slot.
 */
import type { ServerResponse } from 'node:http';
import type { GroundTruthRecord } from './ground-truth.ts';
import type { StreamFormat } from './personalities.ts';
import { TOKEN_JSON, TOKEN_TEXT, outputWord } from './tokens.ts';

/** Far beyond any bound a client should have, and finite, so a test against an unbounded client still ends. */
export const ENDLESS_BYTES = 1024 * 1024 * 1024;

/** Tokens in one repeated write: different words, so the stream is not one token over and over. */
const TOKENS_PER_PIECE = 64;

export const ENDLESS_ERROR_MESSAGE = 'Simulated internal server error whose body never ends (--faults http500_endless)';

/**
 * Writes `head`, then `piece` again and again as the socket drains. `onEnd` gets the number of
 * pieces handed to the socket once the response is over, and whether the client hung up first.
 */
function pump(res: ServerResponse, head: string, piece: Buffer, onEnd: (pieces: number, hungUp: boolean) => void): void {
  let pieces = 0;
  let sent = Buffer.byteLength(head);
  let ended = false;
  res.on('close', () => onEnd(pieces, !ended));
  res.write(head);
  const more = (): void => {
    while (sent < ENDLESS_BYTES && !res.destroyed) {
      pieces++;
      sent += piece.length;
      if (!res.write(piece)) {
        res.once('drain', more);
        return;
      }
    }
    if (!res.destroyed) {
      ended = true;
      res.end();
    }
  };
  more();
}

/**
 * A 200 that never finishes: content events (a stream) or the text of a JSON body (not streamed).
 * The ground truth counts the tokens written (completion_tokens) without a time for each.
 */
export function streamEndless(res: ServerResponse, record: GroundTruthRecord, format: StreamFormat | null, hash: number, onEnd: () => void): void {
  const words = Array.from({ length: TOKENS_PER_PIECE }, (_, i) => outputWord(hash, i));
  const piece = Buffer.from(format ? words.map((w) => format.content(TOKEN_JSON[w]!)).join('') : JSON.stringify(words.map((w) => TOKEN_TEXT[w]).join('')).slice(1, -1));
  res.writeHead(200, { 'content-type': format ? 'text/event-stream' : 'application/json', 'x-request-id': record.request_id });
  record.status = 200;
  record.first_token_ms = performance.now();
  pump(res, format ? format.rolePrelude : '{"choices":[{"index":0,"text":"', piece, (pieces, hungUp) => {
    record.completion_tokens = pieces * TOKENS_PER_PIECE;
    record.end_ms = performance.now();
    record.client_aborted = hungUp;
    onEnd();
  });
}

/** A 500 whose error object opens as usual and whose message never closes. */
export function errorEndless(res: ServerResponse, record: GroundTruthRecord, onEnd: () => void): void {
  res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': record.request_id });
  record.status = 500;
  pump(res, `{"error":{"code":500,"type":"server_error","message":"${ENDLESS_ERROR_MESSAGE}: `, Buffer.from('x'.repeat(16 * 1024)), (_pieces, hungUp) => {
    record.end_ms = performance.now();
    record.client_aborted = hungUp;
    onEnd();
  });
}
