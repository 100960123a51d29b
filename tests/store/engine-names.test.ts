/**
 * An engine name must be one of engines/*.yaml: look-alikes of a real engine that the name's
 * character rules let through are refused. Results are SYNTHETIC (claim-fixtures.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINES_DIR } from '../../harness/lib/specs/spec-folders.ts';
import { listSpecFiles } from '../../harness/lib/specs/yaml-spec.ts';
import { checkEngineName, engineNames } from '../../harness/store/engine-names.ts';
import { problemsOf, rulesOf, synthetic } from './claim-fixtures.ts';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A folder of engine specs named `names`, each the committed sim.yaml renamed (a spec's name is its file's). */
function specFolder(names: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-engine-names-'));
  folders.push(dir);
  const sim = readFileSync(join(ENGINES_DIR, 'sim.yaml'), 'utf8');
  for (const name of names) writeFileSync(join(dir, `${name}.yaml`), sim.replace(/^name: sim$/m, `name: ${name}`));
  return dir;
}

/** The [known-engine] problem checkEngineName reports for an engine named `name` against the specs of `dir`. */
function knownEngineProblem(name: string, dir?: string): { path: string; message: string; fix: string } {
  const added: Array<{ path: string; message: string; fix: string }> = [];
  checkEngineName(synthetic({ engine: name }), (path, message, fix) => added.push({ path, message, fix }), dir);
  expect(added).toHaveLength(1);
  return added[0]!;
}

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

  it('are read from the folder given, each spec checked as the runner loads it', () => {
    expect([...engineNames(specFolder(['alpha', 'beta']))].sort()).toEqual(['alpha', 'beta']);
  });

  it('a refused name is shown cut at 60 characters, each character outside printable ASCII as "?"', () => {
    const name = `v\u043bl\u202em${'x'.repeat(70)}`;
    const problem = knownEngineProblem(name);
    expect(problem.message).toBe(`[known-engine] "v?l?m${'x'.repeat(55)}" is not an engine servebench has a spec for (engines/*.yaml)`);
  });

  it('the fix lists the known engines in alphabetical order of their names (not of their files: "sim-b.yaml" sorts before "sim.yaml")', () => {
    const dir = specFolder(['sim', 'sim-b']);
    const problem = knownEngineProblem('vllm', dir);
    expect(problem.message).toBe(`[known-engine] "vllm" is not an engine servebench has a spec for (${basename(dir)}/*.yaml)`);
    expect(problem.fix).toBe('name one of sim, sim-b; a new engine comes with its engines/<name>.yaml in the same pull request');
  });

  it.each([...engineNames()])('accept %s', (name) => {
    expect(rulesOf(synthetic({ engine: name }))).toEqual([]);
  });
});
