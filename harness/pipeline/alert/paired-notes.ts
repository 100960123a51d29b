/**
 * What an issue says of its regressions' paired confirmation (`servebench confirm`): per regressed
 * cell (metric × load point), the paired A/B's verdict with its 95% interval and, when releases lay
 * between the two and a bisection ran, the range it narrowed the change to, with the llama.cpp tags
 * and links. Kept in the issue's state (groups.ts) beside its cell, so a later night that updates
 * the issue for another reason still shows the evidence the issue was opened on (confirmed.ts
 * attaches them; markdown.ts shows them).
 */
import { z } from 'zod';
import type { Confirmation } from '../confirm/confirmations.ts';

const interval = z.tuple([z.number(), z.number()]).readonly();

export const PairedNoteSchema = z.object({
  metric: z.string(),
  load: z.string(),
  verdict: z.enum(['faster', 'slower', 'no change', 'inconclusive']),
  effect: z.number().nullable(),
  interval: interval.nullable(),
  /** The metric the A/B was designed on, when this cell's verdict came from its runs. */
  ab_metric: z.string(),
  bisection: z
    .object({
      outcome: z.string(),
      metric: z.string(),
      good: z.string(),
      bad: z.string(),
      llamacpp_tags: z.tuple([z.string(), z.string()]).readonly().nullable(),
      compare: z.string().nullable(),
      release_notes: z.string().nullable(),
      comparisons: z.number(),
    })
    .nullable(),
});

export type PairedNote = z.infer<typeof PairedNoteSchema>;

/** The note of a confirmed regression; null for anything else (a not confirmed one never reaches an issue). */
export function noteOf(confirmation: Confirmation | undefined): PairedNote | null {
  if (confirmation === undefined || confirmation.status !== 'confirmed' || confirmation.paired === null || confirmation.paired.verdict === null) return null;
  const { paired, bisection } = confirmation;
  return {
    metric: confirmation.metric,
    load: confirmation.load,
    verdict: paired.verdict!,
    effect: paired.effect,
    interval: paired.interval,
    ab_metric: paired.ab_metric,
    bisection:
      bisection === null
        ? null
        : {
            outcome: bisection.outcome,
            metric: bisection.metric,
            good: bisection.range.good,
            bad: bisection.range.bad,
            llamacpp_tags: bisection.range.llamacpp_tags,
            compare: bisection.range.links.compare,
            release_notes: bisection.range.links.bad.upstream ?? bisection.range.links.bad.package,
            comparisons: bisection.comparisons,
          },
  };
}
