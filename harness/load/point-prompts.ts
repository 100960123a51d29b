/**
 * The requests of one load point. Each point and purpose (warmup, measure) has its own seeded
 * streams, so no prompt repeats across the points of a sweep (a server's prefix cache would
 * otherwise make later points look faster) and warmup never primes a measured prompt. Known counts
 * are prepared before the clock starts; a duration-only closed loop prepares more on demand
 * (deterministic, so any request can be made again after the point).
 */
import { createHash } from 'node:crypto';
import { buildRequest, type BuildContext, type Purpose } from '../workloads/build-request.ts';
import { requestBody, type BodyOptions } from './request-body.ts';
import type { PreparedRequest } from './prepared-request.ts';

export interface PromptSpec {
  readonly build: BuildContext;
  readonly body: BodyOptions;
}

export interface PointPrompts {
  at(i: number): PreparedRequest;
  /** sha256 over the first n request bodies: the same on every machine for the same seed and tokenizer. */
  sha256(n: number): string;
}

export function pointPrompts(spec: PromptSpec, pointIndex: number, purpose: Purpose, prepareAhead: number): PointPrompts {
  const prepare = (i: number): PreparedRequest => {
    const request = buildRequest(spec.build, pointIndex, purpose, i);
    return {
      index: i,
      body: Buffer.from(JSON.stringify(requestBody(spec.body, request))),
      declaredInputTokens: request.inputTokens,
      maxTokens: request.maxTokens,
    };
  };
  const ahead = Array.from({ length: prepareAhead }, (_, i) => prepare(i));
  return {
    at: (i) => ahead[i] ?? prepare(i),
    sha256(n) {
      const hash = createHash('sha256');
      for (let i = 0; i < n; i++) {
        const body = (ahead[i] ?? prepare(i)).body;
        hash.update(`${body.length}:`);
        hash.update(body);
      }
      return hash.digest('hex');
    },
  };
}
