/**
 * An engine name must be one of engines/*.yaml: look-alikes of a real engine that the name's
 * character rules let through are refused. Results are SYNTHETIC (claim-fixtures.ts).
 */
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINES_DIR } from '../../harness/lib/specs/spec-folders.ts';
import { listSpecFiles } from '../../harness/lib/specs/yaml-spec.ts';
import { engineNames } from '../../harness/store/engine-names.ts';
import { problemsOf, rulesOf, synthetic } from './claim-fixtures.ts';

describe('engine names', () => {
  it('are the names of engines/*.yaml, sim included', () => {
    expect([...engineNames()].sort()).toEqual(listSpecFiles(ENGINES_DIR).map((f) => basename(f, '.yaml')).sort());
    expect(engineNames().has('sim')).toBe(true);
  });

  it.each(['vllm.', 'v1lm', 'tensorrt-1lm', 'vllm-openai', 'llama.cpp'])('refuse "%s", a look-alike the character rules let through, naming the field and the known engines', (name) => {
    const problems = problemsOf(synthetic({ engine: name }));
    expect(rulesOf(synthetic({ engine: name }))).toContain('known-engine');
    const problem = problems.find((p) => p.message.startsWith('[known-engine]'))!;
    expect(problem.path).toBe('run.engine.name');
    expect(problem.fix).toMatch(/name one of .*llamacpp.*sglang.*vllm/);
  });

  it.each([...engineNames()])('accept %s', (name) => {
    expect(rulesOf(synthetic({ engine: name }))).toEqual([]);
  });
});
