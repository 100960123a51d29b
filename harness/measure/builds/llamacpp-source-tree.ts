/**
 * llama.cpp's source as an unpacked tree (`servebench llamacpp build --source-tree DIR`), for a
 * machine that can fetch nothing and may have no git: the GPU check carries the installed
 * node-llama-cpp's bundle as a tarball of its tree (scripts/device-check/prepare.ts). The tree is
 * the bundle's checkout less folders no build reads (the model vocabularies, docs, Python
 * packages: none holds a C, C++, CUDA or CMake file), so the build keeps the bundle's identity: its
 * commit (the cache key, LLAMA_BUILD_COMMIT) and tag, which the tree's manifest records.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { usageError } from '../../lib/errors.ts';
import { readJsonFile } from '../../lib/io/json-file.ts';
import type { LlamaCppSource } from './llamacpp-source.ts';

/** The manifest at the tree's top, beside llama.cpp's own CMakeLists.txt. */
export const SOURCE_TREE_MANIFEST = 'servebench-source.json';

export const SourceTreeManifestSchema = z
  .object({
    tag: z.string().min(1),
    commit: z.string().regex(/^[0-9a-f]{40}$/, 'a full commit hash (the bundle\'s: git bundle list-heads)'),
    node_llama_cpp: z.string().min(1),
    /** Top-level paths left out of the bundle's checkout. */
    pruned: z.array(z.string()),
  })
  .strict();
export type SourceTreeManifest = z.infer<typeof SourceTreeManifestSchema>;

/** The tree in DIR as a source to build in place (CMake builds out of source: the tree is only read). */
export function sourceTree(dir: string): LlamaCppSource {
  const tree = resolve(dir);
  const manifestFile = join(tree, SOURCE_TREE_MANIFEST);
  if (!existsSync(manifestFile)) throw usageError(`--source-tree: ${tree} has no ${SOURCE_TREE_MANIFEST}; give a tree scripts/device-check/prepare.ts made`);
  if (!existsSync(join(tree, 'CMakeLists.txt'))) throw usageError(`--source-tree: ${tree} has no CMakeLists.txt: not a llama.cpp source tree`);
  const manifest = readJsonFile(manifestFile, SourceTreeManifestSchema, { flag: '--source-tree', fix: 'give a tree scripts/device-check/prepare.ts made' });
  return { bundle: manifestFile, tree, tag: manifest.tag, commit: manifest.commit, nodeLlamaCpp: manifest.node_llama_cpp, dispose() {} };
}
