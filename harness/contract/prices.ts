/**
 * GPU prices (fleet/prices.yaml): what a GPU-hour costs, where that figure comes from and from
 * when it applies. The compile step prices each run at the entry in effect on its date, so
 * history is never re-priced when a price changes: a new price is a new entry.
 */
import { z } from 'zod';

export const GpuPriceSchema = z
  .object({
    gpu: z.string().min(1).describe('Matched case-insensitively as a substring of the GPU name (the longest match wins), e.g. "H100"'),
    usd_per_gpu_hour: z.number().positive(),
    provider: z.string().min(1).describe('Whose list price, and which instance type'),
    source: z.url().describe('Where the price is published'),
    effective_from: z.iso.date().describe('First day (UTC) the price applies'),
  })
  .strict();

export const PriceTableSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    tier: z.string().describe('Which kind of price every entry is, e.g. "on-demand list price"'),
    prices: z.array(GpuPriceSchema),
  })
  .strict()
  .refine((t) => new Set(t.prices.map((p) => `${p.gpu.toLowerCase()}@${p.effective_from}`)).size === t.prices.length, {
    message: 'two prices for the same gpu and effective_from: keep one (or give the later one a later date)',
    path: ['prices'],
  });

export type GpuPrice = z.infer<typeof GpuPriceSchema>;
export type PriceTable = z.infer<typeof PriceTableSchema>;
