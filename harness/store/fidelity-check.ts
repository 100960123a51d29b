/**
 * [fidelity]: a run's fidelity block (harness/measure/fidelity/run-fidelity.ts) agrees with itself:
 * one answer per prompt or none with the reason, each text's hash its own, per-token lists as long
 * as each other and no longer than asked, and a cache-equality verdict its own differing list gives
 * (docs/validation.md). Agreement with the reference is compile's (harness/store/fidelity.ts).
 */
import { createHash } from 'node:crypto';
import type { RunResult } from '../contract/result.ts';

type AddProblem = (path: string, message: string, fix: string) => void;

const problem = (message: string): string => `[fidelity] ${message}`;

export function checkFidelity(result: RunResult, add: AddProblem): void {
  const fidelity = result.run?.fidelity;
  if (fidelity === undefined) return;
  const path = 'run.fidelity';
  const { prompts, max_tokens: maxTokens } = fidelity.probe_set;
  const answered = fidelity.outputs.length;
  if ((answered === 0) !== (fidelity.error !== null) || (answered !== 0 && answered !== prompts)) {
    add(`${path}.outputs`, problem(`${answered} answers for ${prompts} prompts, error ${fidelity.error === null ? 'null' : 'set'}`), 'one answer per prompt and error null, or no answers and the error that stopped the probe');
  }
  fidelity.outputs.forEach((output, i) => {
    const at = `${path}.outputs[${i}]`;
    if (createHash('sha256').update(output.text, 'utf8').digest('hex') !== output.text_sha256) add(`${at}.text_sha256`, problem('text_sha256 is not the sha256 of text'), 'text_sha256 = sha256 of the UTF-8 text');
    const lengths = [output.token_ids?.length, output.logprobs?.length].filter((n): n is number => n !== undefined);
    if (lengths.some((n) => n > maxTokens || n !== lengths[0])) add(at, problem(`per-token lists of ${lengths.join(' and ')} entries for ${maxTokens} tokens asked`), 'token_ids and logprobs hold one entry per generated token');
  });
  const equality = fidelity.cache_equality;
  if (equality === null) return;
  const outside = equality.differing.some((i) => i >= answered);
  if (outside || (equality.verdict === 'identical') !== (equality.differing.length === 0)) {
    add(`${path}.cache_equality`, problem(`verdict ${equality.verdict} with differing [${equality.differing.join(', ')}] of ${answered} answers`), 'identical exactly when no answered prompt differed warm; differing indexes name answered prompts');
  }
}
