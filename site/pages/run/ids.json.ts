/** The runs with a prerendered page (site/pages/run/[id].astro): the lookup page sends a reader of one of them there. */
import { runIds } from '../../lib/data.ts';

export function GET(): Response {
  return new Response(JSON.stringify(runIds()), { headers: { 'content-type': 'application/json' } });
}
