/**
 * The compare page's significance data, written at build time: per release (configuration ×
 * engine × version × source) with 2 runs or more, the log summary of each compare metric
 * (compare-significance.ts). releases.arrow carries the values the page shows, not their spread;
 * the island fetches this with it.
 */
import { compareLogStats } from '../lib/data.ts';

export function GET(): Response {
  return new Response(JSON.stringify(compareLogStats()), { headers: { 'content-type': 'application/json' } });
}
