/**
 * Synchronous prompt building with a tokenizer that lives on a server. Building a prompt of an
 * exact length is a synchronous loop (each resize depends on the last count); a server answers
 * asynchronously. The server tokenizer answers from its memo of earlier answers, and on a miss
 * throws an AnswerNeeded carrying the fetch; `settle` runs the fetch and builds again, replaying
 * the answered steps from the memo. Building is deterministic (seeded per request), so every
 * replay takes the same path, and nothing is cached half-built on the way.
 */
export class AnswerNeeded extends Error {
  readonly fetch: () => Promise<void>;
  constructor(fetch: () => Promise<void>) {
    super('a tokenizer answer from the server is needed (call through settle())');
    this.name = 'AnswerNeeded';
    this.fetch = fetch;
  }
}

/** Runs `build` until it needs no more server answers; at most `maxFetches` of them. */
export async function settle<T>(build: () => T, maxFetches = 10_000): Promise<T> {
  for (let fetches = 0; ; fetches++) {
    try {
      return build();
    } catch (error) {
      if (!(error instanceof AnswerNeeded) || fetches >= maxFetches) throw error;
      await error.fetch();
    }
  }
}

/** Like settle, but returns synchronously when no answer is missing (the common, prepared case). */
export function settleSoon<T>(build: () => T): T | Promise<T> {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof AnswerNeeded)) throw error;
    return error.fetch().then(() => settle(build));
  }
}
