/**
 * Where llama.cpp's source comes from: the git bundle that every node-llama-cpp release ships
 * (`llama/gitRelease.bundle`, the llama.cpp tree it was built from, squashed into one commit) with
 * the release tag in `llama/llama.cpp.info.json`. The installed node-llama-cpp is read in place; any
 * other release is fetched from the npm registry with `npm pack` (the registry is the one source a
 * machine without other network access still reaches).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { usageError } from '../../lib/errors.ts';
import { isPlainFileName } from '../../lib/io/plain-file-name.ts';

const run = promisify(execFile);

export interface LlamaCppSource {
  /** The bundle file (a git bundle with one commit); for a `tree` source, the tree's manifest. */
  readonly bundle: string;
  /** An unpacked source tree, built in place instead of a clone of the bundle (llamacpp-source-tree.ts). */
  readonly tree?: string;
  /** llama.cpp's release tag as node-llama-cpp names it: "b4753", "v0.4.0". */
  readonly tag: string;
  /** The bundle's commit (node-llama-cpp's squash of that tag's tree): the cache key. */
  readonly commit: string;
  /** The node-llama-cpp release that ships it. */
  readonly nodeLlamaCpp: string;
  /** Removes what was fetched for this source (nothing for the installed package). */
  dispose(): void;
}

const INSTALLED = fileURLToPath(new URL('../../../node_modules/node-llama-cpp', import.meta.url));

function readInfo(packageDir: string, what: string): { tag: string; version: string } {
  const infoFile = join(packageDir, 'llama', 'llama.cpp.info.json');
  if (!existsSync(infoFile)) throw usageError(`${what} has no llama/llama.cpp.info.json: it does not ship llama.cpp's source (node-llama-cpp 3.x does)`);
  const tag = (JSON.parse(readFileSync(infoFile, 'utf8')) as { tag?: unknown }).tag;
  const version = (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version?: unknown }).version;
  if (typeof tag !== 'string' || typeof version !== 'string') throw usageError(`${infoFile}: no "tag" field`);
  return { tag, version };
}

async function bundleCommit(bundle: string): Promise<string> {
  const { stdout } = await run('git', ['bundle', 'list-heads', bundle]);
  const commit = stdout.trim().split(/\s+/)[0] ?? '';
  if (!/^[0-9a-f]{40}$/.test(commit)) throw usageError(`${bundle} is not a git bundle with a commit (git bundle list-heads printed "${stdout.trim()}")`);
  return commit;
}

/** The installed node-llama-cpp's release and the llama.cpp tag it bundles (what the embedded engine runs). */
export function installedNodeLlamaCpp(): { tag: string; version: string } {
  return readInfo(INSTALLED, `node-llama-cpp in ${INSTALLED}`);
}

/** The installed node-llama-cpp's bundle (the default source). */
export async function installedSource(packageDir: string = INSTALLED): Promise<LlamaCppSource> {
  const bundle = join(packageDir, 'llama', 'gitRelease.bundle');
  if (!existsSync(bundle)) throw usageError(`${bundle} is missing; run npm ci first`);
  const { tag, version } = readInfo(packageDir, `node-llama-cpp in ${packageDir}`);
  return { bundle, tag, commit: await bundleCommit(bundle), nodeLlamaCpp: version, dispose() {} };
}

/** A node-llama-cpp release from the npm registry, unpacked into a temporary folder. */
export async function registrySource(version: string): Promise<LlamaCppSource> {
  if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) throw usageError(`--node-llama-cpp: "${version}" is not a release version such as 3.16.0`);
  const dir = mkdtempSync(join(tmpdir(), 'servebench-nlc-'));
  try {
    const { stdout } = await run('npm', ['pack', `node-llama-cpp@${version}`, '--silent', '--pack-destination', dir], { cwd: dir, maxBuffer: 1 << 20 }).catch((error: Error) => {
      throw usageError(`npm pack node-llama-cpp@${version} failed: ${error.message.split('\n').slice(0, 3).join(' ')}`);
    });
    const packed = stdout.trim().split('\n').at(-1)!;
    if (!isPlainFileName(packed)) throw usageError(`npm pack node-llama-cpp@${version} named its tarball ${JSON.stringify(packed.slice(0, 120))}, not a file name in its folder; the registry's manifest is not one servebench can use`);
    const tarball = join(dir, packed);
    await run('tar', ['-xzf', tarball, '-C', dir, 'package/package.json', 'package/llama/llama.cpp.info.json', 'package/llama/gitRelease.bundle']).catch(() => {
      throw usageError(`node-llama-cpp@${version} ships no llama.cpp source bundle (llama/gitRelease.bundle); releases from 3.0 on do`);
    });
    rmSync(tarball);
    const packageDir = join(dir, 'package');
    const { tag } = readInfo(packageDir, `node-llama-cpp@${version}`);
    const bundle = join(packageDir, 'llama', 'gitRelease.bundle');
    return { bundle, tag, commit: await bundleCommit(bundle), nodeLlamaCpp: version, dispose: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
