/**
 * `servebench llamacpp build | list`: upstream llama.cpp's server built from the source that a
 * node-llama-cpp release ships (the installed one by default, any other from the npm registry),
 * for the CPU or, with --cuda, for NVIDIA GPUs, cached by commit and kind; `run --engine llamacpp --launcher process` finds these builds by release.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';
import { booleanOption, numberOption, parseCommandLine, type CommandSpec, type Command, type RawOptions } from '../../lib/cli/options.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { buildHasCuda, buildLlamaCpp, CUDA_ARCHITECTURES, listLlamaCppBuilds, llamaCppCacheDir, type BuildProgress, type LlamaCppBuild } from './llamacpp-build.ts';
import { installedSource, registrySource } from './llamacpp-source.ts';
import { sourceTree } from './llamacpp-source-tree.ts';

const spec: CommandSpec = {
  name: 'llamacpp',
  summary: "build upstream llama.cpp's server for the CPU (or NVIDIA GPUs) from node-llama-cpp's bundled source, and list the builds",
  usage: 'servebench llamacpp build [--node-llama-cpp VERSION… | --source-tree DIR] [--cuda [--cuda-arch LIST]] [--jobs N] [--json]\n       servebench llamacpp list [--json]',
  options: [
    { name: 'node-llama-cpp', value: 'VERSION', help: 'Build the llama.cpp that this node-llama-cpp release bundles (fetched with npm pack); repeatable (default: the installed one).', multiple: true },
    { name: 'source-tree', value: 'DIR', help: 'Build the unpacked source tree in DIR, with its servebench-source.json (tag, bundle commit, node-llama-cpp release): no git, no network (the GPU check\'s carried source, scripts/device-check/prepare.ts).' },
    { name: 'cuda', help: 'Build for NVIDIA GPUs (GGML_CUDA): needs the CUDA toolkit (nvcc in CUDACXX, on PATH, or in $CUDA_PATH/bin, by default /usr/local/cuda/bin). Kept beside the CPU build of the same release; `run --launcher process --gpu N` runs it.' },
    { name: 'cuda-arch', value: 'LIST', help: 'GPU architectures of a --cuda build, as CMAKE_CUDA_ARCHITECTURES takes them: 90 (H100, H200), 89 (L40S), 80;90, native (the GPUs of this machine) (default: native).' },
    { name: 'jobs', value: 'N', help: 'Parallel compile jobs (default: the number of CPUs).' },
    { name: 'json', help: 'Print the builds as JSON.' },
    { name: 'no-progress', help: 'Do not draw the progress bar.' },
  ],
  epilog: [
    `Builds live in ${llamaCppCacheDir()}/<commit>/, a --cuda build in <commit>-cuda-<architectures>/ beside it (set SERVEBENCH_CACHE to move them); a build is made once per commit and kind.`,
    'The build is portable (GGML_NATIVE=OFF), static, without libcurl, OpenSSL or the web UI; it needs git, cmake and a C++ compiler.',
    'Then: servebench run --engine llamacpp --launcher process --engine-version TAG … (default: the installed node-llama-cpp\'s build).',
    'Exit status: 0 built or found; 1 the build failed (its last output is printed); 2 bad input (an unknown release).',
  ].join('\n'),
};

function describe(build: LlamaCppBuild): string {
  // Whether it can run on a GPU: `run --launcher process --gpu` refuses a CPU build.
  return `llama.cpp ${build.tag} (node-llama-cpp ${build.node_llama_cpp}, bundle ${build.commit.slice(0, 10)}), a ${buildHasCuda(build) ? 'CUDA' : 'CPU'} build, built in ${build.build_seconds} s → ${build.binary('llama-server')}`;
}

function progressPrinter(enabled: boolean, label: string): (progress: BuildProgress) => void {
  const tty = process.stderr.isTTY === true;
  let lastStage: BuildProgress['stage'] | null = null;
  let lastDecile = -1;
  const started = performance.now();
  return (progress) => {
    if (!enabled) return;
    const elapsed = ((performance.now() - started) / 1000).toFixed(0);
    if (progress.percent === null || progress.stage !== 'compile') {
      if (progress.stage !== lastStage && progress.stage !== 'compile') process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${label}: ${progress.stage}…${tty ? '' : '\n'}`);
      lastStage = progress.stage;
      return;
    }
    lastStage = progress.stage;
    if (tty) {
      const filled = Math.round((progress.percent / 100) * 24);
      process.stderr.write(`\r\x1b[2K${label}: [${'█'.repeat(filled)}${'░'.repeat(24 - filled)}] ${progress.percent}%  ${elapsed}s`);
    } else if (Math.floor(progress.percent / 10) > lastDecile) {
      lastDecile = Math.floor(progress.percent / 10);
      process.stderr.write(`${label}: compiling ${progress.percent}% (${elapsed} s)\n`);
    }
  };
}

/** Where CMake finds nvcc (CUDACXX, then PATH, then the toolkit's install: $CUDA_PATH, by default /usr/local/cuda); null: no CUDA toolkit. */
export function findNvcc(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [env['CUDACXX'], ...(env['PATH'] ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'nvcc')), join(env['CUDA_PATH'] || '/usr/local/cuda', 'bin', 'nvcc')];
  return candidates.find((path) => path !== undefined && path !== '' && existsSync(path)) ?? null;
}

/** The CUDA architectures of a --cuda build, or null for the CPU build; refused before anything is fetched. */
function cudaBuild(options: RawOptions): string | null {
  const arch = options['cuda-arch'] as string | undefined;
  if (!booleanOption(options, 'cuda')) {
    if (arch !== undefined) throw usageError('--cuda-arch: only with --cuda (the CPU build has no GPU architectures)');
    return null;
  }
  const architectures = arch ?? 'native';
  if (!CUDA_ARCHITECTURES.test(architectures)) throw usageError(`--cuda-arch: "${architectures}" is not a CMAKE_CUDA_ARCHITECTURES list such as 90, 80;90 or native`);
  if (findNvcc() === null) throw usageError(`--cuda: no CUDA toolkit here (no nvcc on PATH or in ${process.env['CUDA_PATH'] || '/usr/local/cuda'}/bin, CUDACXX unset); install the CUDA toolkit, or leave --cuda out for the CPU build`);
  return architectures;
}

export const llamacppCommand: Command = {
  spec,
  async run(argv) {
    const { options, positionals } = parseCommandLine(spec, argv);
    const json = booleanOption(options, 'json');
    const [action, ...rest] = positionals;
    if (rest.length > 0) throw usageError(`llamacpp: unexpected argument "${rest[0]}"; see \`servebench llamacpp --help\``);
    if (action === 'list') {
      const builds = listLlamaCppBuilds();
      if (json) process.stdout.write(`${JSON.stringify(builds, null, 2)}\n`);
      else process.stdout.write(builds.length === 0 ? 'no llama.cpp builds yet; run `servebench llamacpp build`\n' : `${builds.map(describe).join('\n')}\n`);
      return EXIT.ok;
    }
    if (action !== 'build') throw usageError('llamacpp: say `build` or `list`; see `servebench llamacpp --help`');
    const cudaArchitectures = cudaBuild(options);
    const versions = (options['node-llama-cpp'] as string[] | undefined) ?? [];
    const tree = options['source-tree'] as string | undefined;
    if (tree !== undefined && versions.length > 0) throw usageError('--source-tree: not with --node-llama-cpp (each names the source to build)');
    const jobs = numberOption(spec, options, 'jobs', { min: 1 }, true) ?? availableParallelism();
    const progress = !booleanOption(options, 'no-progress') && !json;
    const built: LlamaCppBuild[] = [];
    for (const version of versions.length > 0 ? versions : [null]) {
      const source = tree !== undefined ? sourceTree(tree) : version === null ? await installedSource() : await registrySource(version);
      try {
        const label = `llama.cpp ${source.tag}`;
        const { build, cached } = await buildLlamaCpp(source, { jobs, cudaArchitectures, onProgress: progressPrinter(progress, label) });
        if (progress && process.stderr.isTTY) process.stderr.write('\n');
        if (!json) process.stdout.write(`${cached ? 'cached' : 'built'}: ${describe(build)}\n`);
        built.push(build);
      } finally {
        source.dispose();
      }
    }
    if (json) process.stdout.write(`${JSON.stringify(built, null, 2)}\n`);
    return EXIT.ok;
  },
};
