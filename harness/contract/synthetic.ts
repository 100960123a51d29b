/**
 * What marks a result as SYNTHETIC: made up by the test kit (bench/lib/synthetic-results.ts) for
 * tests and benchmarks, measuring nothing. Such a file passes every check of its content by design
 * (that is what makes it a fixture), so the one thing that keeps it out of the published store is
 * this mark: `validate`, `compile` and `collect` refuse it in the repository's own results/.
 */

/** The host OS the test kit writes: no machine reports it (a real run records os.release()). */
export const SYNTHETIC_HOST_OS = 'synthetic';
/** How the test kit's workload descriptions begin. */
export const SYNTHETIC_DESCRIPTION_PREFIX = 'SYNTHETIC';

interface Markable {
  readonly workload: { readonly spec?: { readonly description?: string | undefined } | undefined };
  readonly run?: { readonly host: { readonly os: string } } | null | undefined;
}

/** The JSON path of the field that marks the result synthetic, or null for a measured one. */
export function syntheticMark(result: Markable): string | null {
  if (result.run?.host.os === SYNTHETIC_HOST_OS) return 'run.host.os';
  if (result.workload.spec?.description?.startsWith(SYNTHETIC_DESCRIPTION_PREFIX)) return 'workload.spec.description';
  return null;
}
