/**
 * SLA tiers (fleet/sla-tiers.yaml): named latency budgets, each a limit on the p95 time to first
 * token and the p95 time per output token of a release's load point (geometric means over its runs).
 * The compile step reports, per release and tier, the most throughput per GPU among the measured
 * load points that meet both limits (capacity). Every limit says where it comes from. The file is
 * versioned: a changed limit is a new version, and every capacity row names the version it used.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { usageError } from '../lib/errors.ts';

/** The metrics a tier limits: release values (geometric means over runs) of the points table's columns, in ms, lower is better. */
export const SLA_TIER_METRICS = ['ttft_ms_p95', 'tpot_ms_p95'] as const;
export type SlaTierMetric = (typeof SLA_TIER_METRICS)[number];

const limit = z.number().positive().finite().describe('Milliseconds; a load point meets it when its release value (the geometric mean over its runs) is at most this');
const source = z
  .string()
  .min(1)
  .regex(/https?:\/\/\S+/, 'a source names where the limit comes from, with its URL')
  .describe('Where the limit comes from (with a URL), and how servebench applies it');

export const SlaTierSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'an id is lowercase letters, digits and dashes, starting with a letter'),
    label: z.string().min(1),
    description: z.string().min(1).describe('One sentence for readers: who this tier is for'),
    limits: z.object({ ttft_ms_p95: limit, tpot_ms_p95: limit }).strict(),
    sources: z.object({ ttft_ms_p95: source, tpot_ms_p95: source }).strict(),
  })
  .strict();

export const SlaTiersSchema = z
  .object({
    version: z.number().int().positive().describe('Bumped whenever a limit changes; capacity rows carry it (tiers_version)'),
    tiers: z.array(SlaTierSchema).min(1),
  })
  .strict()
  .refine((file) => new Set(file.tiers.map((t) => t.id)).size === file.tiers.length, { message: 'two tiers with the same id', path: ['tiers'] });

export type SlaTier = z.infer<typeof SlaTierSchema>;
export type SlaTiers = z.infer<typeof SlaTiersSchema>;

export const DEFAULT_SLA_TIERS = fileURLToPath(new URL('../../fleet/sla-tiers.yaml', import.meta.url));

/** What to do about a problem at `path` (zod's path into the file). */
function fixFor(path: readonly PropertyKey[]): string {
  const field = path.at(-1);
  if (path[0] === 'version') return 'version is a positive integer; bump it when a limit changes';
  if (path.includes('limits')) return `limits are ${SLA_TIER_METRICS.join(' and ')}, each a positive number of milliseconds`;
  if (path.includes('sources')) return `give each of ${SLA_TIER_METRICS.join(', ')} a source: where the limit comes from, with its URL`;
  if (field === 'id') return 'ids are unique, lowercase letters, digits and dashes (e.g. interactive)';
  if (path[0] === 'tiers') return path.length === 1 ? 'list at least one tier, each with its own id' : 'each tier has id, label, description, limits and sources (see the top of fleet/sla-tiers.yaml)';
  return 'the file has version and tiers only (see the top of fleet/sla-tiers.yaml)';
}

/** Checks a tier file's text; one line per problem naming the file, the field and the fix. */
export function checkSlaTiers(file: string, text: string): { tiers: SlaTiers | null; problems: string[] } {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    return { tiers: null, problems: [`${file}: (file): not readable YAML: ${(error as Error).message.split('\n')[0]}; fix the syntax`] };
  }
  const parsed = SlaTiersSchema.safeParse(raw);
  if (parsed.success) return { tiers: parsed.data, problems: [] };
  return {
    tiers: null,
    problems: parsed.error.issues.map((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? `: unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` : '';
      return `${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}${keys}; fix: ${fixFor(issue.path)}`;
    }),
  };
}

/** The tier file, parsed; a missing or invalid file is a usage error listing every problem. */
export function loadSlaTiers(file: string = DEFAULT_SLA_TIERS): SlaTiers {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw usageError(`SLA tiers: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); fix: restore fleet/sla-tiers.yaml`);
  }
  const { tiers, problems } = checkSlaTiers(file, text);
  if (!tiers) throw usageError(`invalid SLA tiers file\n${problems.join('\n')}`);
  return tiers;
}
