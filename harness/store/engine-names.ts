/**
 * An engine a result names must be one servebench has a spec for (engines/*.yaml): a look-alike
 * ("vllm.", "v1lm", "tensorrt-1lm") passes the name's character rules but would be a second engine
 * that reads as the first, with its own ranks. The specs are read through the same loader the
 * runner uses, so a name validate accepts is one `servebench run --engine` takes.
 *
 * `sim` (the simulated engine) has a spec, so its results pass this rule: the tests' and the
 * nightly dry run's runs are of it. It has no known release (fleet/releases.json), so its results
 * are never ranked.
 */
import { basename } from 'node:path';
import { EngineSchema } from '../contract/engine.ts';
import type { RunResult } from '../contract/result.ts';
import { memoByKey } from '../lib/memo.ts';
import { usageError } from '../lib/errors.ts';
import { ENGINES_DIR } from '../lib/specs/spec-folders.ts';
import { checkYamlSpec, formatProblems, listSpecFiles } from '../lib/specs/yaml-spec.ts';
import type { AddProblem } from './plausibility.ts';

const namesIn = memoByKey((dir: string): ReadonlySet<string> => {
  const names = new Set<string>();
  for (const file of listSpecFiles(dir)) {
    const { spec, problems } = checkYamlSpec(file, EngineSchema);
    // A broken spec is a broken checkout, not a bad result: say so rather than refuse every result of it.
    if (!spec) throw usageError(`invalid engine spec (validate reads engines/ to know the engine names)\n${formatProblems(problems)}`);
    names.add(spec.name);
  }
  return names;
});

/** The engine names of engines/*.yaml (of `dir`). */
export function engineNames(dir: string = ENGINES_DIR): ReadonlySet<string> {
  return namesIn(dir);
}

export function checkEngineName(result: RunResult, add: AddProblem, dir: string = ENGINES_DIR): void {
  const name = result.run?.engine.name;
  if (name === undefined) return;
  const names = engineNames(dir);
  if (names.has(name)) return;
  const shown = name.slice(0, 60).replace(/[^\x20-\x7e]/g, '?');
  add('run.engine.name', `[known-engine] "${shown}" is not an engine servebench has a spec for (${basename(dir)}/*.yaml)`, `name one of ${[...names].sort().join(', ')}; a new engine comes with its engines/<name>.yaml in the same pull request`);
}
