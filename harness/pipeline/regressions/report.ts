/**
 * The input of `servebench confirm` and `servebench alert`: the JSON `servebench regress --json` prints. Checked
 * field by field, because it crosses a process (and often a CI artifact) boundary; the key must
 * be safe inside an HTML comment.
 *
 * Besides `regressions` (the significant changes for the worse), a report may carry
 * `comparisons`: every comparison regress made in its scope (the same rows, regressions or not,
 * without a key). Only with it can alert tell that a configuration was measured again and no longer
 * regresses (regress --base reports only what the night touched, so a missing regression alone
 * proves nothing); without it, issues are opened and updated but never closed as fixed.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { usageError } from '../../lib/errors.ts';
import type { Regression } from '../../store/regress.ts';

const nullableNumber = z.number().nullable().optional().transform((v) => v ?? null);
const nullableString = z.string().nullable().optional().transform((v) => v ?? null);

const comparisonFields = {
  engine: z.string().min(1),
  version: z.string().min(1),
  previous_version: z.string().min(1),
  metric: z.string().min(1),
  model: z.string(),
  precision: z.string().default('default'),
  hardware: z.string(),
  workload: z.string(),
  load: z.string(),
  methodology: z.string().default(''),
  config_id: z.string().default(''),
  scenario_id: z.string().default(''),
  better: z.enum(['higher', 'lower']),
  previous_value: z.number(),
  value: z.number(),
  change_pct: z.number(),
  ci_low_pct: nullableNumber,
  ci_high_pct: nullableNumber,
  p_value: nullableNumber,
  method: z.enum(['welch', 'noise-band', 'unknown-noise']),
  significant: z.boolean().default(true),
  verdict: z.enum(['better', 'worse', 'unclear']).default('worse'),
  previous_runs: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  previous_run_id: z.string(),
  run_id: z.string(),
  previous_file: nullableString,
  file: nullableString,
  url: nullableString,
  previous_url: nullableString,
};

const ComparisonSchema = z.looseObject(comparisonFields);
const RegressionSchema = z.looseObject({
  key: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a key of letters, digits, ".", "_" or "-" (as regress prints it)'),
  ...comparisonFields,
});

const ReportSchema = z.looseObject({
  threshold_pct: z.number().optional(),
  compared: z.number().optional(),
  regressions: z.array(RegressionSchema),
  comparisons: z.array(ComparisonSchema).optional(),
});

/** One comparison regress made (a regression or not), with the links it computed. */
export type AlertComparison = Omit<Regression, 'key'> & {
  readonly url: string | null;
  readonly previous_url: string | null;
};

/** One regression as regress printed it, with the links it computed. */
export interface AlertRegression extends Regression {
  readonly url: string | null;
  readonly previous_url: string | null;
}

export interface RegressionReport {
  readonly threshold_pct: number | null;
  readonly regressions: AlertRegression[];
  /** Every comparison in the report's scope, when the report lists them; null when it does not. */
  readonly comparisons: AlertComparison[] | null;
}

export function parseRegressionReport(text: string, source: string): RegressionReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw usageError(`--regressions: ${source} is not JSON (${(error as Error).message}); give the output of \`servebench regress --json\``);
  }
  const parsed = ReportSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw usageError(`--regressions: ${source}: ${issue.path.join('.') || '(top level)'}: ${issue.message}; give the output of \`servebench regress --json\``);
  }
  // The same key twice (two reports concatenated) is one regression: one row.
  const seen = new Set<string>();
  const regressions = parsed.data.regressions.filter((r) => !seen.has(r.key) && seen.add(r.key)) as AlertRegression[];
  const comparisons = (parsed.data.comparisons as AlertComparison[] | undefined) ?? null;
  return { threshold_pct: parsed.data.threshold_pct ?? null, regressions, comparisons };
}

/** `-` reads standard input (a pipe from `servebench regress --json`). */
export function readRegressionReport(path: string): RegressionReport {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw usageError(`--regressions: cannot read ${path === '-' ? 'standard input' : path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseRegressionReport(text, path === '-' ? 'standard input' : path);
}
