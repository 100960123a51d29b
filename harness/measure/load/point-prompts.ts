/**
 * The requests of one load point. Each point and purpose (warmup, measure) has its own seeded
 * streams, so no prompt repeats across the points of a sweep (a server's prefix cache would
 * otherwise make later points look faster) and warmup never primes a measured prompt. Known counts
 * are prepared before the clock starts; a duration-only closed loop prepares more on demand
 * (deterministic, so any request can be made again after the point).
 */
import { createHash } from 'node:crypto';
import { buildRequest, type BuildContext, type BuiltRequest, type Purpose } from '../workloads/build-request.ts';
import { requestBody, type BodyOptions } from './request-body.ts';
import type { PreparedRequest } from './prepared-request.ts';
import { settle, settleSoon } from '../tokenizer/deferred.ts';

export interface PromptSpec {
  readonly build: BuildContext;
  readonly body: BodyOptions;
  /** Tests only (RunLoadEffects.alterRequest): a planted client bug, applied to what is sent but not to what the workload intends. */
  readonly alter?: (request: BuiltRequest, index: number) => BuiltRequest;
}

export interface PointPrompts {
  /** The i-th request: at once when prepared, else built now (a promise while a server tokenizer answers). */
  at(i: number): PreparedRequest | Promise<PreparedRequest>;
  /** A request already built (every sent one is), for the accounting after the point. */
  built(i: number): PreparedRequest;
  /** sha256 over the first n prompts and their max_tokens: the same on every machine and engine for the same seed and tokenizer. */
  sha256(n: number): string;
}

export async function pointPrompts(spec: PromptSpec, pointIndex: number, purpose: Purpose, prepareAhead: number): Promise<PointPrompts> {
  // Built once each (a long prompt is costly to build); requests beyond the prepared ones are
  // built when first sent, then kept for the counts and the hash after the point.
  const built = new Map<number, { prepared: PreparedRequest; digest: string }>();
  const get = (i: number): { prepared: PreparedRequest; digest: string } => {
    let entry = built.get(i);
    if (!entry) {
      const intended = buildRequest(spec.build, pointIndex, purpose, i);
      const request = spec.alter ? { ...spec.alter(intended, i), reuse: intended.reuse } : intended;
      entry = {
        prepared: {
          index: i,
          body: Buffer.from(JSON.stringify(requestBody(spec.body, request))),
          declaredInputTokens: request.inputTokens,
          maxTokens: request.maxTokens,
          reuse: request.reuse,
        },
        // The hash covers what every engine must receive alike (prompt and max_tokens), not the
        // model name or engine-specific fields, so runs on different engines compare.
        digest: JSON.stringify([request.input, request.maxTokens]),
      };
      built.set(i, entry);
    }
    return entry;
  };
  for (let i = 0; i < prepareAhead; i++) await settle(() => get(i));
  return {
    at(i) {
      const entry = settleSoon(() => get(i));
      return entry instanceof Promise ? entry.then((e) => e.prepared) : entry.prepared;
    },
    built(i) {
      const entry = built.get(i);
      if (!entry) throw new Error(`request ${i} of point ${pointIndex} was never built`);
      return entry.prepared;
    },
    sha256(n) {
      const hash = createHash('sha256');
      for (let i = 0; i < n; i++) {
        const digest = get(i).digest;
        hash.update(`${Buffer.byteLength(digest)}:`);
        hash.update(digest);
      }
      return hash.digest('hex');
    },
  };
}
