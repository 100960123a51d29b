/**
 * The tests that may be skipped on CI, each with the reason it can never run there. Under CI=true
 * any other skipped test fails the run (tests/setup/skip-gate.ts): a test that quietly stops
 * running (no root privilege to drop, a tool missing, an older build not built) is a check that
 * stopped checking, and nobody reads "57 skipped" in a green log.
 *
 * An entry names the test file and the test's full name (its describe blocks and title joined by
 * " > ", as vitest prints it) or the start of it, so one entry can cover a whole describe block.
 * A skip that depends on the machine (another OS, a missing tool) does not belong here: CI's
 * machine has what the test needs (.ci/run installs it), so there it must run.
 */
export interface AllowedSkip {
  /** Path from the repository root. */
  readonly file: string;
  /** The full name of the skipped test, or its leading part (a describe block). */
  readonly test: string;
  /** Why it can never run on CI's machine. */
  readonly reason: string;
}

export const ALLOWED_SKIPS: readonly AllowedSkip[] = [
  {
    file: 'tests/pipeline/detect-npm.test.ts',
    test: 'the REAL npm registry',
    reason:
      'it downloads from registry.npmjs.org, and the unit run makes no request off the machine (tests/setup/loopback-only.mjs refuses it); the same code runs against the recorded packument on a loopback registry in this file. SERVEBENCH_TEST_NETWORK=1 runs it.',
  },
];
