/** Workload specs in workloads/: the shared YAML spec reader with the workload schema. */
import { WorkloadSchema, type Workload } from '../../contract/workload.ts';
import { WORKLOADS_DIR } from '../../lib/specs/spec-folders.ts';
import { checkYamlSpec, formatProblems, listSpecFiles, loadYamlSpec, type SpecProblem } from '../../lib/specs/yaml-spec.ts';

export { formatProblems, WORKLOADS_DIR, type SpecProblem };

export function checkSpecFile(file: string): { workload: Workload | null; problems: SpecProblem[] } {
  const { spec, problems } = checkYamlSpec(file, WorkloadSchema);
  return { workload: spec, problems };
}

export function loadWorkload(nameOrPath: string, dir: string = WORKLOADS_DIR): Workload {
  return loadYamlSpec(nameOrPath, dir, WorkloadSchema, 'workload');
}

export function listWorkloadFiles(dir: string = WORKLOADS_DIR): string[] {
  return listSpecFiles(dir);
}
