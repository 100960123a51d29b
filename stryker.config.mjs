// @ts-check
/**
 * Mutation testing (docs/mutation-testing.md): Stryker plants one bug at a time in a sandbox copy
 * of the modules below and runs the unit tests that cover it; a mutant no test notices is a check
 * nobody checks. `npm run test:mutation` runs it (incremental: only mutants whose code or tests
 * changed since the last run are run again); `-- --mutate harness/store/plausibility.ts` narrows
 * it to one module. The weekly workflow (.github/workflows/mutation.yml) runs it all.
 */

/**
 * The validator: every module `checkResultText` (harness/store/check-result.ts) calls for a rule,
 * harness/contract's among them ([lengths-exact], [path-matches-content], [synthetic], the
 * scenario's hash).
 */
export const VALIDATOR = [
  'harness/store/check-result.ts',
  'harness/store/plausibility.ts',
  'harness/store/sample-counts.ts',
  'harness/store/repeat-coherence.ts',
  'harness/store/cache-audit-check.ts',
  'harness/store/fidelity-check.ts',
  'harness/store/accuracy-check.ts',
  'harness/store/physical-bounds.ts',
  'harness/store/column-fit.ts',
  'harness/store/command-agreement.ts',
  'harness/store/engine-names.ts',
  'harness/store/known-releases.ts',
  'harness/store/roofline.ts',
  'harness/store/hardware-limits.ts',
  'harness/store/model-sizes.ts',
  'harness/store/workload-claims.ts',
  'harness/store/store-limits.ts',
  'harness/store/signature-sidecar.ts',
  'harness/lib/cli/recorded-argv.ts',
  'harness/contract/credentials.ts',
  'harness/contract/lengths-evidence.ts',
  'harness/contract/result-path.ts',
  'harness/contract/workload-hash.ts',
  'harness/contract/synthetic.ts',
  'harness/contract/sufficiency.ts',
];

/** The statistics a page publishes: the metric summary, significance, regressions, derived tables and capacity. */
export const STATISTICS = [
  'harness/measure/metrics/summarize.ts',
  'harness/measure/metrics/stats.ts',
  'harness/contract/significance.ts',
  'harness/store/regress.ts',
  'harness/store/derive.ts',
  'harness/store/noise.ts',
  'harness/store/pareto.ts',
  'harness/store/capacity.ts',
  'harness/store/percentile-interval.ts',
  'harness/store/published-values.ts',
  'harness/store/validity.ts',
  'harness/lib/stats/log-interval.ts',
  'harness/lib/stats/wilson-interval.ts',
  'harness/contract/sla-tiers.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: [...VALIDATOR, ...STATISTICS],
  testRunner: 'vitest',
  vitest: {
    configFile: 'tests/mutation/vitest.unit.config.ts',
    // Only the test files that import a mutated module (directly or not) run at all.
    related: true,
    // As vitest.config.ts runs them: tests start servers and child processes.
    pool: 'forks',
  },
  // Each mutant runs only the tests that executed its code in the first, unmutated run.
  coverageAnalysis: 'perTest',
  // A mutant reached only while a test file loads or in its beforeAll (a compile of a fixture folder)
  // would need every related test rerun, minutes each: half of plausibility.ts's mutants on the first
  // run. Those the tests also reach inside a test still run against those tests; the others are
  // ignored, and the rules' own tests (tests/store/validator-rules.test.ts) reach every rule inside a test.
  ignoreStatic: true,
  // Results are kept between runs (test-artifacts/ is not committed; the workflow caches the file).
  incremental: true,
  incrementalFile: 'test-artifacts/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'test-artifacts/mutation/mutation.html' },
  jsonReporter: { fileName: 'test-artifacts/mutation/mutation.json' },
  // Below 90% killed (of the mutants a test covers or not), the run fails.
  thresholds: { high: 95, low: 90, break: 90 },
  concurrency: 2,
  // The first run, unmutated, runs every test related to the modules: over ten minutes here.
  dryRunTimeoutMinutes: 60,
  // A mutant that loops is stopped after its tests' own time plus this; a 2-core machine shared with
  // other work needs more than Stryker's 5 s.
  timeoutMS: 20_000,
  // Copied into each sandbox otherwise: screenshots, built sites, downloaded data (none is read by a unit test).
  ignorePatterns: ['/test-artifacts', '/dist', '/build', '/out', '/datasets', '/.astro', '/bench/results'],
  tempDirName: '.stryker-tmp',
};
