/**
 * The vitest configuration Stryker runs (stryker.config.mjs): the repository's own, with only its
 * `unit` project. A mutant is judged by the fast, deterministic tests: the timing project measures
 * speed (a mutant would only make it flaky), and the pipeline and browser projects build whole
 * sites per file, minutes per mutant on a 2-core machine.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.ts';

const unit = base.test?.projects?.find((project) => typeof project === 'object' && 'test' in project && project.test?.name === 'unit');
if (unit === undefined) throw new Error('vitest.config.ts has no project named unit: stryker.config.mjs runs that project');

export default defineConfig({
  ...base,
  // The repository root, also inside Stryker's sandbox copy of it.
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: { ...base.test, projects: [unit] },
});
