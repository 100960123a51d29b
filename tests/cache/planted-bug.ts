/**
 * A SYNTHETIC client bug the cache audit must catch, planted through the test-only
 * RunLoadEffects.alterRequest: from a conversation's second turn on, the history is resent with
 * one byte of its first message changed, to a letter that differs from turn to turn (as a client
 * that re-renders a timestamp into the history would). Every later turn's prompt then differs from
 * every earlier one inside the first message, so a correct prefix cache can reuse almost nothing,
 * while the workload says the whole earlier turn is reusable.
 */
import type { BuiltRequest } from '../../harness/measure/workloads/build-request.ts';

/** Changes the first lower-case letter from the 10th character on into another letter, one per turn: one byte. */
function changeOneByte(text: string, turn: number): string {
  for (let i = 10; i < text.length; i++) {
    const c = text[i]!;
    if (c < 'a' || c > 'z') continue;
    const letters = ['q', 'x', 'z', 'j'].filter((l) => l !== c);
    return text.slice(0, i) + letters[(turn - 1) % letters.length] + text.slice(i + 1);
  }
  throw new Error('no letter to change');
}

export function rewriteHistoryByOneByte(request: BuiltRequest): BuiltRequest {
  if (!('messages' in request.input) || request.input.messages.length < 3) return request;
  const turn = (request.input.messages.length - 1) / 2;
  const messages = request.input.messages.map((m, i) => (i === 0 ? { ...m, content: changeOneByte(m.content, turn) } : m));
  return { ...request, input: { messages } };
}
