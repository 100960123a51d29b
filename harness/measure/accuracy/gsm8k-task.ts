/**
 * The GSM8K task as servebench runs it: which file, which bytes, how a problem is asked and how its
 * answer is scored. Everything here follows lm-evaluation-harness's `gsm8k` task, version 3.0
 * (lm_eval/tasks/gsm8k/gsm8k.yaml at EleutherAI/lm-evaluation-harness 47f16bf6a68ec19467e728ce52ac6c5937d5b3da;
 * its filters: lm_eval/filters/extraction.py RegexFilter, at 03ebd203ed6ca73757d671b57e9444a952a74b5b),
 * so a number here can be set beside an lm-eval number for the same model. Where servebench cannot
 * do what lm-eval does (there is no train split here), the difference is named where it is made.
 * The slice's defaults and bounds are the contract's (AccuracyTaskSpecSchema): a workload declares them too.
 */
import { GSM8K_TEST_PROBLEMS } from '../../contract/accuracy.ts';

/** Bump when the prompt, the stops, the slice or the scoring changes: old and new accuracies do not compare. */
export const GSM8K_TASK_VERSION = 1;

export const GSM8K_DATASET = {
  /** Relative to the repository root. */
  file: 'workloads/datasets/gsm8k/test.jsonl',
  /** sha256 of test.jsonl as published (openai/grade-school-math 3101c7d): a changed file is refused. */
  sha256: '3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14',
  size: GSM8K_TEST_PROBLEMS,
  split: 'test',
  source: 'openai/grade-school-math grade_school_math/data/test.jsonl at 3101c7d',
  license: 'MIT (Copyright (c) 2021 OpenAI), workloads/datasets/gsm8k/LICENSE',
} as const;

/** Greedy (lm-eval: do_sample false, temperature 0) and a bounded answer (lm-eval's default max_gen_toks, 256). */
export const GSM8K_GENERATION = {
  temperature: 0,
  maxTokens: 256,
  /**
   * lm-eval's `until` for gsm8k 3.0. Version 1.0 also stopped at "\n\n"; 3.0 dropped it (a solution
   * may hold a blank line), and so does servebench.
   */
  stop: ['Question:', '</s>', '<|im_end|>'],
} as const;

/** lm-eval's doc_to_text: "Question: {{question}}\nAnswer:". */
export function questionText(question: string): string {
  return `Question: ${question}\nAnswer:`;
}

/** lm-eval's target_delimiter (between doc_to_text and an exemplar's answer) and fewshot_delimiter. */
export const TARGET_DELIMITER = ' ';
export const FEWSHOT_DELIMITER = '\n\n';

/** lm-eval's "strict-match" filter: the first "#### <number>", its number. */
export const STRICT_PATTERN = /#### (-?[0-9.,]+)/;
/** lm-eval's "flexible-extract" filter: the last number-like run in the text (group_select -1). */
export const FLEXIBLE_PATTERN = /(-?[$0-9.,]{2,})|(-?[0-9]+)/g;
/** What lm-eval's RegexFilter answers when nothing matches: never equal to a reference. */
export const NO_MATCH = '[invalid]';
/**
 * lm-eval's regexes_to_ignore for gsm8k, applied in this order to the extracted answer and to the
 * whole reference answer alike (exact_match_hf_evaluate), then both are lower-cased (ignore_case).
 * The third takes a reference's worked solution away up to its "#### ".
 */
export const IGNORED_PATTERNS: readonly RegExp[] = [/,/g, /\$/g, /[\s\S]*#### /, /\.$/];
