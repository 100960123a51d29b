/**
 * Upstream llama.cpp (`llama-server`, `llama-quantize`) built from a node-llama-cpp source bundle,
 * for the CPU or (--cuda, where the CUDA toolkit is installed) for NVIDIA GPUs, cached outside the
 * repository and keyed by the bundle's commit and the kind of build:
 *
 *   $SERVEBENCH_CACHE (default $XDG_CACHE_HOME/servebench or ~/.cache/servebench)
 *     llama.cpp/<commit>/bin/llama-server, bin/llama-quantize   static, portable CPU binaries
 *     llama.cpp/<commit>/build.json                             tag, node-llama-cpp release, flags, time
 *     llama.cpp/<commit>-cuda-<architectures>/…                 the same source built with GGML_CUDA
 *
 * The build is portable (GGML_NATIVE=OFF: it runs on any x86-64 the fleet has), without libcurl or
 * OpenSSL (servebench never has llama.cpp download anything) and without the web UI. A finished
 * build appears at once (a rename), so a build that failed or was interrupted leaves no half entry.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ServebenchError } from '../../lib/errors.ts';
import { servebenchCacheDir } from '../../lib/io/cache-dir.ts';
import type { LlamaCppSource } from './llamacpp-source.ts';

export const LLAMACPP_TARGETS = ['llama-server', 'llama-quantize'] as const;

/** The CMake cache entries of every build: the identity of "the CPU build" across machines. */
export const CMAKE_FLAGS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DGGML_NATIVE=OFF',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DLLAMA_CURL=OFF',
  '-DLLAMA_OPENSSL=OFF',
  '-DLLAMA_BUILD_UI=OFF',
  '-DLLAMA_USE_PREBUILT_UI=OFF',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_SERVER=ON', // before mid-2025 the server was an example: LLAMA_BUILD_EXAMPLES stays on (only the targets below are compiled)
  '-DLLAMA_BUILD_APP=OFF',
] as const;

const BuildManifestSchema = z.object({
  tag: z.string(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  node_llama_cpp: z.string(),
  targets: z.array(z.string()),
  cmake_flags: z.array(z.string()),
  built_at: z.string(),
  build_seconds: z.number(),
  jobs: z.number().int(),
});
export type BuildManifest = z.infer<typeof BuildManifestSchema>;

export interface LlamaCppBuild extends BuildManifest {
  readonly dir: string;
  /** Absolute path of each built program. */
  binary(name: (typeof LLAMACPP_TARGETS)[number]): string;
}

/**
 * Whether a build runs on NVIDIA GPUs, read from the CMake flags its build.json records: servebench's
 * own builds are CPU builds (CMAKE_FLAGS above), so a process launch with --gpu is refused unless
 * the build was configured with GGML_CUDA on.
 */
export function buildHasCuda(build: Pick<BuildManifest, 'cmake_flags'>): boolean {
  return build.cmake_flags.some((flag) => /^-DGGML_CUDA=(ON|1|TRUE|YES)$/i.test(flag));
}

/** A CUDA build's GPU architectures (CMAKE_CUDA_ARCHITECTURES: "90", "89;90", "native"). */
export const CUDA_ARCHITECTURES = /^(native|all|all-major|\d{2,3}[a-z]?(;\d{2,3}[a-z]?)*)$/;

/** The cache entry of a commit's build: the commit for the CPU build, with -cuda-<architectures> for a CUDA one. */
export function buildKey(commit: string, cudaArchitectures: string | null = null): string {
  return cudaArchitectures === null ? commit : `${commit}-cuda-${cudaArchitectures.replaceAll(';', '_')}`;
}

const BUILD_KEY = /^[0-9a-f]{40}(-cuda-[0-9a-z_-]+)?$/;

export function llamaCppCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(servebenchCacheDir(env), 'llama.cpp');
}

function readBuild(dir: string): LlamaCppBuild | null {
  const file = join(dir, 'build.json');
  if (!existsSync(file)) return null;
  const parsed = BuildManifestSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) return null;
  return { ...parsed.data, dir, binary: (name) => join(dir, 'bin', name) };
}

/** Every finished build in the cache, newest first. */
export function listLlamaCppBuilds(env: NodeJS.ProcessEnv = process.env): LlamaCppBuild[] {
  const root = llamaCppCacheDir(env);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => BUILD_KEY.test(name))
    .map((name) => readBuild(join(root, name)))
    .filter((build): build is LlamaCppBuild => build !== null)
    .sort((a, b) => b.built_at.localeCompare(a.built_at));
}

/**
 * The build of a release tag ("b4753", "v0.4.0"), a node-llama-cpp release, or a commit prefix: a
 * CPU build, or with `cuda` a CUDA one (a CPU measurement never runs a GPU build, nor the reverse).
 */
export function findLlamaCppBuild(version: string, env: NodeJS.ProcessEnv = process.env, cuda = false): LlamaCppBuild | null {
  const builds = listLlamaCppBuilds(env).filter((b) => buildHasCuda(b) === cuda);
  return (
    builds.find((b) => b.tag === version) ??
    builds.find((b) => b.node_llama_cpp === version) ??
    (/^[0-9a-f]{7,40}$/.test(version) ? builds.find((b) => b.commit.startsWith(version)) : undefined) ??
    null
  );
}

export function buildOfCommit(commit: string, env: NodeJS.ProcessEnv = process.env, cudaArchitectures: string | null = null): LlamaCppBuild | null {
  return readBuild(join(llamaCppCacheDir(env), buildKey(commit, cudaArchitectures)));
}

export interface BuildProgress {
  readonly stage: 'clone' | 'configure' | 'compile' | 'install';
  /** 0–100 while compiling (CMake's own percentage), else null. */
  readonly percent: number | null;
  readonly line: string;
}

/** llama.cpp's build number from a "bNNNN" tag; the newer "vX.Y.Z" tags carry none. */
function buildNumberOf(tag: string): number | null {
  const match = /^b(\d+)$/.exec(tag);
  return match ? Number(match[1]) : null;
}

function runStep(argv: readonly string[], cwd: string, log: string[], onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    const take = (chunk: Buffer): void => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        log.push(line);
        if (log.length > 200) log.shift();
        onLine(line);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', (error) => reject(new ServebenchError(`cannot run ${argv[0]}: ${error.message} (is it installed?)`, 1)));
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new ServebenchError(`${argv.slice(0, 3).join(' ')} … failed (${signal ?? `exit ${code}`}); last output:\n${log.slice(-25).join('\n')}`, 1));
    });
  });
}

export interface BuildOptions {
  readonly jobs: number;
  /** Build for NVIDIA GPUs with these CMAKE_CUDA_ARCHITECTURES (needs the CUDA toolkit's nvcc); null: the CPU build. */
  readonly cudaArchitectures?: string | null;
  readonly env?: NodeJS.ProcessEnv;
  readonly onProgress?: (progress: BuildProgress) => void;
}

/** Builds (or finds in the cache) llama-server and llama-quantize of a source bundle. */
export async function buildLlamaCpp(source: LlamaCppSource, options: BuildOptions): Promise<{ build: LlamaCppBuild; cached: boolean }> {
  const env = options.env ?? process.env;
  const cuda = options.cudaArchitectures ?? null;
  const cached = buildOfCommit(source.commit, env, cuda);
  if (cached) return { build: cached, cached: true };
  const root = llamaCppCacheDir(env);
  mkdirSync(root, { recursive: true });
  const work = join(root, `.work-${buildKey(source.commit, cuda)}-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  // The steps run in it; a tree source is not cloned into it.
  mkdirSync(work);
  const log: string[] = [];
  const report = options.onProgress ?? (() => {});
  const started = performance.now();
  try {
    const src = source.tree ?? join(work, 'src');
    if (source.tree === undefined) {
      report({ stage: 'clone', percent: null, line: `git clone ${source.bundle}` });
      await runStep(['git', 'clone', '--quiet', source.bundle, src], root, log, () => {});
    }
    const buildNumber = buildNumberOf(source.tag);
    const configure = [
      'cmake', '-S', src, '-B', join(work, 'build'),
      ...CMAKE_FLAGS,
      // GGML_NATIVE stays off for the host code; the GPU code is built for the architectures asked for.
      ...(cuda === null ? [] : ['-DGGML_CUDA=ON', `-DCMAKE_CUDA_ARCHITECTURES=${cuda}`]),
      // The bundle is one squashed commit: git would number every build "b1". The tag is the truth.
      ...(buildNumber !== null ? [`-DLLAMA_BUILD_NUMBER=${buildNumber}`] : []),
      `-DLLAMA_BUILD_COMMIT=${source.commit.slice(0, 7)}`,
      ...(source.tag.startsWith('v') ? ['-DLLAMA_BUILD_IS_DEV=OFF'] : []),
    ];
    report({ stage: 'configure', percent: null, line: 'cmake configure' });
    await runStep(configure, work, log, (line) => report({ stage: 'configure', percent: null, line }));
    const compile = ['cmake', '--build', join(work, 'build'), '--target', ...LLAMACPP_TARGETS, '-j', String(options.jobs)];
    await runStep(compile, work, log, (line) => {
      const match = /^\[\s*(\d+)%\]/.exec(line);
      report({ stage: 'compile', percent: match ? Number(match[1]) : null, line });
    });
    report({ stage: 'install', percent: 100, line: 'install' });
    const staged = join(work, 'out');
    mkdirSync(join(staged, 'bin'), { recursive: true });
    for (const target of LLAMACPP_TARGETS) copyFileSync(join(work, 'build', 'bin', target), join(staged, 'bin', target));
    const manifest: BuildManifest = {
      tag: source.tag,
      commit: source.commit,
      node_llama_cpp: source.nodeLlamaCpp,
      targets: [...LLAMACPP_TARGETS],
      cmake_flags: configure.filter((arg) => arg.startsWith('-D')),
      built_at: new Date().toISOString(),
      build_seconds: Math.round((performance.now() - started) / 100) / 10,
      jobs: options.jobs,
    };
    writeFileSync(join(staged, 'build.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const finalDir = join(root, buildKey(source.commit, cuda));
    renameSync(staged, finalDir);
    return { build: readBuild(finalDir)!, cached: false };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The build a process launch of llama.cpp runs: the one of --engine-version (a tag, node-llama-cpp
 * release or commit), else the installed node-llama-cpp's, else the newest; null when there is
 * none (then llama-server from PATH).
 */
export function chooseLlamaCppBuild(version: string | undefined, installedCommit: string | null, env: NodeJS.ProcessEnv = process.env, cuda = false): LlamaCppBuild | null {
  // Asked for a GPU without a CUDA build, the CPU build is returned: run refuses it, saying why (llamacpp-on-gpu.ts).
  if (version !== undefined) {
    const build = findLlamaCppBuild(version, env, cuda) ?? (cuda ? findLlamaCppBuild(version, env, false) : null);
    if (build) return build;
    const known = listLlamaCppBuilds(env).map((b) => `${b.tag} (node-llama-cpp ${b.node_llama_cpp}${buildHasCuda(b) ? ', CUDA' : ''})`);
    throw new ServebenchError(
      `--engine-version: no llama.cpp build of "${version}" (built: ${known.join(', ') || 'none'}); build it with \`servebench llamacpp build${cuda ? ' --cuda' : ''} --node-llama-cpp VERSION\``,
      2,
    );
  }
  const builds = listLlamaCppBuilds(env);
  const pick = (list: readonly LlamaCppBuild[]) => list.find((b) => b.commit === installedCommit) ?? list[0];
  return pick(builds.filter((b) => buildHasCuda(b) === cuda)) ?? pick(builds) ?? null;
}
