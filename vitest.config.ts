import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { skipGate } from './tests/setup/skip-gate.ts';

const releasesFixture = fileURLToPath(new URL('./tests/fixtures/synthetic-releases.json', import.meta.url));
// Every Node process a unit test starts loads the loopback guard too (tests/setup/loopback-only.mjs).
const loopbackOnly = `--import=${new URL('./tests/setup/loopback-only.mjs', import.meta.url).href}`;

// Tests whose assertions are about time (fidelity to the sim's ground truth, schedule lateness)
// run after the others and one file at a time: on a 2-core machine, parallel test files would
// measure each other's CPU contention instead of the load generator.
export default defineConfig({
  // Under CI=true a skipped test fails the run unless tests/skips.ts gives its reason.
  plugins: [skipGate()],
  test: {
    // The synthetic results' made-up versions (1.1.0, 1.0.0+dryrun) count as known releases in the
    // tests, so the statistics tests rank them (harness/contract/releases.ts); CLI children inherit it.
    env: { SERVEBENCH_EXTRA_RELEASES: releasesFixture },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        // No request leaves the machine: connections to any host but loopback are refused, in the
        // test workers and in every Node process they start.
        test: {
          name: 'unit',
          include: ['tests/**/*.test.ts'],
          exclude: ['tests/**/*.timing.test.ts', 'tests/**/*.pipeline.test.ts', 'tests/**/*.browser.test.ts'],
          sequence: { groupOrder: 0 },
          setupFiles: ['tests/setup/loopback-only.setup.ts'],
          env: { SERVEBENCH_EXTRA_RELEASES: releasesFixture, NODE_OPTIONS: [process.env['NODE_OPTIONS'], loopbackOnly].filter(Boolean).join(' ') },
        },
      },
      {
        extends: true,
        // The built site in Chromium, one file at a time: two astro builds of one checkout at once
        // collide in its prerender folder.
        test: { name: 'browser', include: ['tests/**/*.browser.test.ts'], fileParallelism: false, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        // One retry: a timing assertion can lose to a burst of unrelated load on a 2-core machine;
        // failing twice in a row is a real regression.
        test: { name: 'timing', include: ['tests/**/*.timing.test.ts'], fileParallelism: false, retry: 1, sequence: { groupOrder: 2 } },
      },
      {
        extends: true,
        // End-to-end runs of whole pipelines (real engines, compile, site build) use every core:
        // alone, last, so they neither slow the other tests into timeouts nor are slowed by them.
        test: { name: 'pipeline', include: ['tests/**/*.pipeline.test.ts'], fileParallelism: false, sequence: { groupOrder: 3 } },
      },
    ],
  },
});
