/**
 * A GSM8K problem as a request's input, for either API, in lm-eval's words.
 * Completions: lm-eval's few-shot context, exemplars "Question: …\nAnswer: <solution>" joined by a
 * blank line, then the problem's "Question: …\nAnswer:". Chat: as lm-eval's --apply_chat_template
 * --fewshot_as_multiturn, each exemplar a user turn (its question) and an assistant turn (its
 * solution), then the problem as the last user turn; the server's chat template renders them.
 */
import type { RequestInput } from '../load/request-body.ts';
import type { Api } from '../../contract/common.ts';
import { FEWSHOT_DELIMITER, TARGET_DELIMITER, questionText } from './gsm8k-task.ts';

export interface Exemplar {
  readonly question: string;
  readonly answer: string;
}

export function completionsPrompt(exemplars: readonly Exemplar[], question: string): string {
  return [...exemplars.map((exemplar) => `${questionText(exemplar.question)}${TARGET_DELIMITER}${exemplar.answer}`), questionText(question)].join(FEWSHOT_DELIMITER);
}

export function chatMessages(exemplars: readonly Exemplar[], question: string): Array<{ role: string; content: string }> {
  return [
    ...exemplars.flatMap((exemplar) => [
      { role: 'user', content: questionText(exemplar.question) },
      { role: 'assistant', content: exemplar.answer },
    ]),
    { role: 'user', content: questionText(question) },
  ];
}

export function problemInput(api: Api, exemplars: readonly Exemplar[], question: string): RequestInput {
  return api === 'chat' ? { messages: chatMessages(exemplars, question) } : { prompt: completionsPrompt(exemplars, question) };
}
