/**
 * The llama.cpp builds the pipeline tests run against. By default the two that `npm test` and
 * .ci/run build: the installed node-llama-cpp's release and node-llama-cpp 3.6.0's (llama.cpp
 * b4753), so the suite's length and duration do not depend on what else the cache holds (a
 * bisection leaves a build per release it measured, eight minutes of conformance each).
 * SERVEBENCH_TEST_LLAMACPP=all runs every cached build; a comma list of tags or node-llama-cpp
 * versions ("b6122,3.8.1") runs those as well as the default two.
 */
import { buildHasCuda, listLlamaCppBuilds, type LlamaCppBuild } from '../../harness/measure/builds/llamacpp-build.ts';
import { installedNodeLlamaCpp } from '../../harness/measure/builds/llamacpp-source.ts';

/** The older release .ci/run builds (`servebench llamacpp build --node-llama-cpp 3.6.0`). */
export const CI_OLDER_NODE_LLAMA_CPP = '3.6.0';

export function llamaCppBuildsUnderTest(env: NodeJS.ProcessEnv = process.env): LlamaCppBuild[] {
  // CPU builds: the suite runs on machines without a GPU (a --cuda build is run by the GPU check).
  const builds = listLlamaCppBuilds(env).filter((build) => !buildHasCuda(build));
  const asked = (env['SERVEBENCH_TEST_LLAMACPP'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (asked.includes('all')) return builds;
  const wanted = new Set([installedNodeLlamaCpp().version, CI_OLDER_NODE_LLAMA_CPP, ...asked]);
  return builds.filter((build) => wanted.has(build.node_llama_cpp) || wanted.has(build.tag));
}
