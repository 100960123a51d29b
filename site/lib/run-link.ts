/**
 * Where a run id links (build time): its prerendered page where compile wrote one (the runs some
 * page links to), else the lookup page, which renders any published run from the Parquet files in
 * the browser. Prerendering every run would not fit a fleet's results on GitHub Pages.
 */
import { runIds } from './data.ts';

let prerendered: ReadonlySet<string> | null = null;

/** The lookup page's URL for a run id; `base` is the site's base path without a trailing slash. */
export const runLookupUrl = (base: string, id: string): string => `${base}/run/?id=${encodeURIComponent(id)}`;

/** A run's page: prerendered (`/run/<id>/`) when it has one, else `/run/?id=<id>`, never a 404. */
export function runHref(base: string, id: string): string {
  prerendered ??= new Set(runIds());
  return prerendered.has(id) ? `${base}/run/${id}/` : runLookupUrl(base, id);
}
