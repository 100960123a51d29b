/**
 * The GSM8K problems, read from the repository's copy and only if it is the published file: an edited
 * problem or answer would change every accuracy measured on it without a trace, so a file whose
 * sha256 differs is refused, naming what differs and how to restore it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usageError } from '../../lib/errors.ts';
import { GSM8K_DATASET } from './gsm8k-task.ts';
import { referenceOf } from './score.ts';

export interface Gsm8kProblem {
  /** The 0-based line in the file. */
  readonly id: number;
  readonly question: string;
  /** The worked solution, ending in "#### <number>" (few-shot exemplars show it whole). */
  readonly answer: string;
  /** The normalized number after "#### ". */
  readonly reference: string;
}

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export function gsm8kDatasetPath(): string {
  return resolve(REPO_ROOT, GSM8K_DATASET.file);
}

const RESTORE = `restore it (git checkout ${GSM8K_DATASET.file}, or copy test.jsonl from ${GSM8K_DATASET.source}); servebench scores only the published file`;

/** The problems of `file` (default: the repository's copy), refused unless its bytes are the published ones. */
export function loadGsm8k(file: string = gsm8kDatasetPath()): Gsm8kProblem[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw usageError(`${file}: cannot read the GSM8K test set (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); ${RESTORE}`);
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const lines = bytes.toString('utf8').split('\n').filter((line) => line.trim() !== '');
  if (sha256 !== GSM8K_DATASET.sha256) {
    const size = lines.length === GSM8K_DATASET.size ? `the same ${lines.length} lines, some of them changed` : `${lines.length} lines where the published file has ${GSM8K_DATASET.size}`;
    throw usageError(`${file}: sha256 ${sha256} is not the published GSM8K test set's ${GSM8K_DATASET.sha256} (${size}); ${RESTORE}`);
  }
  // The hash vouches for the content; parsing can still only fail if the constant above is wrong.
  return lines.map((line, id) => {
    const { question, answer } = JSON.parse(line) as { question: string; answer: string };
    return { id, question, answer, reference: referenceOf(answer) };
  });
}
