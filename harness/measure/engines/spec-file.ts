/** Engine specs in engines/: the shared YAML spec reader with the engine schema. */
import { EngineSchema, type Engine } from '../../contract/engine.ts';
import { ENGINES_DIR } from '../../lib/specs/spec-folders.ts';
import { checkYamlSpec, listSpecFiles, loadYamlSpec, type SpecProblem } from '../../lib/specs/yaml-spec.ts';

export { ENGINES_DIR };

export function checkEngineFile(file: string): { engine: Engine | null; problems: SpecProblem[] } {
  const { spec, problems } = checkYamlSpec(file, EngineSchema);
  return { engine: spec, problems };
}

export function loadEngine(nameOrPath: string, dir: string = ENGINES_DIR): Engine {
  return loadYamlSpec(nameOrPath, dir, EngineSchema, 'engine');
}

export function listEngineFiles(dir: string = ENGINES_DIR): string[] {
  return listSpecFiles(dir);
}
