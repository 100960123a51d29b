/**
 * The output of `servebench confirm`: for each regression of a `regress --json` report, whether a
 * paired A/B on one host (`servebench ab`'s procedure, its confirm pass included) between the
 * previous release and the new one reproduced it, and, where releases lie between the two and it
 * did, the bisection that narrowed it down. One definition, read back by `servebench alert
 * --confirmations` (checked field by field: it crosses a process and often a CI artifact boundary).
 * Each A/B and bisection is kept whole in the folder beside the file; this file names them.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { usageError } from '../../lib/errors.ts';

export const CONFIRMATIONS_SCHEMA_VERSION = 1;

/**
 * Why a regression is confirmed or not:
 * - slower: the paired verdict agrees with regress (the only reason that confirms);
 * - faster: the opposite way; no change and inconclusive: the pairing does not reproduce it;
 * - failed: an arm run of its A/B failed, or its configuration could not be rebuilt from its run;
 * - interrupted: a stop signal came first; not examined: the budget ran out before its turn, or
 *   the A/B cannot measure it (detail says which).
 */
export const REASONS = ['slower', 'faster', 'no change', 'inconclusive', 'failed', 'interrupted', 'not examined'] as const;
export type ConfirmationReason = (typeof REASONS)[number];

const verdict = z.enum(['faster', 'slower', 'no change', 'inconclusive']);
const interval = z.tuple([z.number(), z.number()]).readonly();
const text = z.string().max(2000);
const links = z.object({ upstream: z.string().nullable(), package: z.string().nullable() });

const RangeSchema = z.object({
  good: text,
  bad: text,
  /** The llama.cpp tags the two releases bundle; null for other engines. */
  llamacpp_tags: z.tuple([text, text]).readonly().nullable(),
  links: z.object({ good: links, bad: links, compare: z.string().nullable() }),
});

const PairedSchema = z.object({
  /** The A/B's file, relative to the confirmations file. */
  file: text,
  /** The metric the A/B was designed on (its blocks sized by it); this regression's metric may be another one of the same runs. */
  ab_metric: text,
  /** true: this regression's verdict was computed from the A/B's runs on its own metric (the same blocks, the same paired t). */
  derived: z.boolean(),
  verdict: verdict.nullable(),
  effect: z.number().nullable(),
  interval: interval.nullable(),
  passes: z.array(z.object({ name: text, verdict: verdict.nullable(), effect: z.number().nullable(), interval: interval.nullable() })).readonly(),
});

const BisectionSummarySchema = z.object({
  /** The bisection's file, relative to the confirmations file (its A/B files beside it). */
  file: text,
  metric: text,
  outcome: text,
  direction: z.enum(['faster', 'slower']).nullable(),
  /** The range narrowed to: for culprit and spread two adjacent releases, else the range so far. */
  range: RangeSchema,
  culprit: RangeSchema.nullable(),
  comparisons: z.number().int().nonnegative(),
  wall_s: z.number().nonnegative(),
});

export const ConfirmationSchema = z.object({
  /** regress's key of the regression (alert files and filters rows by it). */
  key: text,
  /** The issue alert files the regression under (one per engine release and configuration). */
  group_key: text,
  engine: text,
  previous_version: text,
  version: text,
  model: text,
  hardware: text,
  workload: text,
  load: text,
  metric: text,
  better: z.enum(['higher', 'lower']),
  /** What regress reported: the change in percent (unpaired, between runs made at different times). */
  change_pct: z.number(),
  status: z.enum(['confirmed', 'not confirmed']),
  reason: z.enum(REASONS),
  /** One line: what the A/B found, or why there is no A/B. */
  detail: text,
  paired: PairedSchema.nullable(),
  bisection: BisectionSummarySchema.nullable(),
});

export const ConfirmationsSchema = z.object({
  kind: z.literal('confirmations'),
  schema_version: z.literal(CONFIRMATIONS_SCHEMA_VERSION),
  /** completed: every regression was examined or left out for a stated reason; failed: a run failed; interrupted: a signal stopped it. */
  status: z.enum(['completed', 'failed', 'interrupted']),
  started_at: text,
  finished_at: text,
  command: z.array(text),
  regressions_file: text,
  results_dir: text,
  /** The whole command's wall budget in seconds; null: none. */
  budget_s: z.number().positive().nullable(),
  wall_s: z.number().nonnegative(),
  /** The A/Bs run (one per engine release pair, configuration and load point) and the bisections. */
  ab_runs: z.number().int().nonnegative(),
  bisections: z.number().int().nonnegative(),
  confirmations: z.array(ConfirmationSchema),
});

export type Confirmation = z.infer<typeof ConfirmationSchema>;
export type Confirmations = z.infer<typeof ConfirmationsSchema>;
export type PairedSummary = z.infer<typeof PairedSchema>;
export type BisectionSummary = z.infer<typeof BisectionSummarySchema>;

export function parseConfirmations(json: string, source: string): Confirmations {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw usageError(`--confirmations: ${source} is not JSON (${(error as Error).message}); give the file \`servebench confirm --out\` wrote`);
  }
  const parsed = ConfirmationsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw usageError(`--confirmations: ${source}: ${issue.path.join('.') || '(top level)'}: ${issue.message}; give the file \`servebench confirm --out\` wrote`);
  }
  return parsed.data;
}

export function readConfirmations(path: string): Confirmations {
  let json: string;
  try {
    json = readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`--confirmations: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseConfirmations(json, path);
}

/**
 * Several files (one per runner class of a night) as one verdict per regression key: a regression
 * some file examined wins over one it was not examined in; among examined ones, a confirmation wins
 * (each runner class examines its own regressions, so two examined entries of one key are reruns).
 */
export function confirmationsByKey(files: readonly Confirmations[]): Map<string, Confirmation> {
  const rank = (c: Confirmation) => (c.status === 'confirmed' ? 2 : c.reason === 'not examined' ? 0 : 1);
  const byKey = new Map<string, Confirmation>();
  for (const file of files) {
    for (const confirmation of file.confirmations) {
      const current = byKey.get(confirmation.key);
      if (current === undefined || rank(confirmation) > rank(current)) byKey.set(confirmation.key, confirmation);
    }
  }
  return byKey;
}
