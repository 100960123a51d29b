/**
 * The repeat block of a run result: one repeat of `run --repeats` (each repeat is its own run and
 * result), the group it belongs to and how the group ended (harness/measure/run/repeat-verdict.ts,
 * docs/metrics.md#repeats). Validate checks a group's files against each other (harness/store/repeat-coherence.ts).
 */
import { z } from 'zod';

/** How a repeat ended its group. */
export const REPEAT_STOP_REASONS = ['completed', 'converged', 'max-repeats', 'max-time', 'failed', 'interrupted'] as const;
/**
 * The metrics `--repeats auto` converges, per load point: columns whose release interval compile
 * publishes (harness/contract/metric-catalog.ts), the throughput and the two latencies of the compare page.
 */
export const REPEAT_METRICS = ['output_throughput', 'ttft_ms_p50', 'tpot_ms_p50'] as const;
/** `--repeats auto` stops converged only from this many repeats on (docs/metrics.md#repeats: why 3). */
export const MIN_CONVERGED_REPEATS = 3;

export const RepeatSchema = z
  .object({
    group_id: z.string().regex(/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/).describe("The run_id of the group's first repeat: every repeat of one `run --repeats` carries it"),
    index: z.number().int().min(1).describe('This repeat, from 1'),
    of: z.number().int().min(1).describe('The most repeats the group may run: N of --repeats N, --max-repeats of --repeats auto'),
    mode: z.enum(['fixed', 'auto']).describe('fixed: --repeats N; auto: until the interval converges'),
    stop_reason: z.enum(REPEAT_STOP_REASONS).nullable().describe('Set on the repeat that ended the group: completed (N of N), converged, max-repeats, max-time, failed (this repeat failed or exceeded --max-failure-rate), interrupted; null: the group went on'),
    target: z.number().positive().max(1).optional().describe('auto: the relative half-width the 95% interval of each metric must reach (--repeat-target)'),
    half_widths: z
      .array(z.object(Object.fromEntries(REPEAT_METRICS.map((m) => [m, z.number().nonnegative().nullable()])) as Record<(typeof REPEAT_METRICS)[number], z.ZodNullable<z.ZodNumber>>).strict())
      .optional()
      .describe("auto: per point, each metric's relative half-width of the 95% CI of the geometric mean over the group's repeats so far, this one included (exp(t·s/√n) − 1 of the logs); null with fewer than 2 values"),
  })
  .strict();

export type Repeat = z.infer<typeof RepeatSchema>;
