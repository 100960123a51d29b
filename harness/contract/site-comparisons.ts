/**
 * The comparisons as the site reads them (part of the compiled site data, site-data.ts, which
 * re-exports them): a bisection's row, with the range it narrowed a change to and each step.
 */
import { z } from 'zod';

const text = z.string();
const count = z.number().int().nonnegative();
const verdictText = z.enum(['faster', 'slower', 'no change', 'inconclusive']).nullable();

/**
 * A bisection as the pages tell it (harness/store/comparison-tables.ts makes the row): the range it
 * narrowed a change to, with the llama.cpp tags and compare view, the A/B of that range, each step's
 * verdict, and the configuration it ran on (scenario_id, load, metric) so the history chart of that
 * configuration marks it. Releases are node-llama-cpp versions for llama.cpp (a tag each), the
 * engine's versions otherwise.
 */
export const BisectionRowSchema = z
  .object({
    file: text,
    started_at: text,
    engine: text,
    model: text.nullable(),
    hardware: text.nullable(),
    workload: text,
    load: text.nullable(),
    metric: text,
    better: z.enum(['higher', 'lower']),
    precision: text.nullable(),
    methodology: text.nullable(),
    workload_sha256: text.nullable(),
    scenario_id: text.nullable(),
    config_id: text.nullable(),
    /** The published scenario it explains (its runs may have run more requests per point than the published ones). */
    explains_scenario_id: text.nullable(),
    good: text,
    bad: text,
    good_tag: text.nullable(),
    bad_tag: text.nullable(),
    releases: count,
    outcome: z.enum(['culprit', 'spread', 'not reproducible', 'inconclusive', 'budget', 'failed', 'interrupted']),
    direction: z.enum(['faster', 'slower']).nullable(),
    range_good: text,
    range_bad: text,
    range_good_tag: text.nullable(),
    range_bad_tag: text.nullable(),
    compare_url: z.url({ protocol: /^https$/ }).nullable(),
    effect: z.number().nullable(),
    effect_lo: z.number().nullable(),
    effect_hi: z.number().nullable(),
    end_to_end_verdict: verdictText,
    comparisons: count,
    builds_made: count,
    builds_cached: count,
    wall_s: z.number().nonnegative(),
    /** Blocks of its steps' A/Bs whose two arms answered different requests (only schema-1 A/Bs can have any). */
    unpaired_blocks: count,
    steps: z.array(z.object({ a: text, b: text, verdict: verdictText, effect: z.number().nullable(), effect_lo: z.number().nullable(), effect_hi: z.number().nullable(), unpaired_blocks: count, file: text }).strict()),
  })
  .strict();
export type BisectionRow = z.infer<typeof BisectionRowSchema>;
