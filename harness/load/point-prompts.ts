/**
 * The prompts of one load point. Each point and purpose (warmup, measure) has its own seeded
 * stream, so no prompt repeats across the points of a sweep (a server's prefix cache would
 * otherwise make later points look faster) and warmup never primes a measured prompt. Known counts
 * are prepared before the clock starts; a duration-only closed loop prepares more on demand
 * (deterministic, so any prompt can be made again after the point).
 */
import { createHash } from 'node:crypto';
import { requestBody, type BodyOptions } from './request-body.ts';
import type { PreparedRequest } from './prepared-request.ts';
import { syntheticText } from './synthetic-prompts.ts';

export interface PromptSpec {
  readonly seed: number;
  readonly inputLen: number;
  readonly body: BodyOptions;
}

export interface PointPrompts {
  at(i: number): PreparedRequest;
  /** sha256 over the first n prompts: the same on every machine for the same seed and lengths. */
  sha256(n: number): string;
}

export function pointPrompts(spec: PromptSpec, pointIndex: number, purpose: 'measure' | 'warmup', prepareAhead: number): PointPrompts {
  const text = (i: number): string => syntheticText(spec.seed, `${purpose}-p${pointIndex}-prompt-${i}`, spec.inputLen);
  const prepare = (i: number): PreparedRequest => {
    const promptText = text(i);
    return {
      index: i,
      body: Buffer.from(JSON.stringify(requestBody(spec.body, promptText))),
      promptText,
      declaredInputTokens: spec.inputLen,
      maxTokens: spec.body.maxTokens,
    };
  };
  const ahead = Array.from({ length: prepareAhead }, (_, i) => prepare(i));
  return {
    at: (i) => ahead[i] ?? prepare(i),
    sha256(n) {
      const hash = createHash('sha256');
      for (let i = 0; i < n; i++) {
        const prompt = ahead[i]?.promptText ?? text(i);
        hash.update(`${Buffer.byteLength(prompt)}:`);
        hash.update(prompt);
      }
      return hash.digest('hex');
    },
  };
}
