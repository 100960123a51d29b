/**
 * servebench's CLI as one JavaScript file for a machine with Node and nothing else (the GPU
 * check's device: no node_modules, no network). Two things change from the tsx-run source:
 *
 * - import.meta.url: each of servebench's modules finds the repository's files (engines/,
 *   workloads/, package.json) from its own URL. In one file every module would share the bundle's,
 *   so each gets its source file's URL under the checkout the bundle sits in: the bundle lives at
 *   <checkout>/.device-check/servebench.mjs (or $SERVEBENCH_ROOT names the checkout).
 * - native modules: what `run`, `llamacpp` and `validate` never load is replaced by a stub that
 *   throws when used (DuckDB: `compile`; llama.cpp's Node binding: the embedded engine and the GGUF
 *   tokenizer, which a run with --tokenizer never asks for). node-llama-cpp is reduced to its
 *   pure-JS GGUF reader, which the GPU fit check (llamacpp-on-gpu.ts) calls.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = fileURLToPath(new URL('./cli-entry.ts', import.meta.url));
const require = createRequire(import.meta.url);

// The banner runs before any module: the bundle's own URL is the one import.meta.url left as is.
const BANNER = [
  "import { createRequire as __sbCreateRequire } from 'node:module';",
  "import { pathToFileURL as __sbPathToFileURL } from 'node:url';",
  'const require = __sbCreateRequire(import.meta.url);',
  "const __sbRoot = process.env.SERVEBENCH_ROOT ? __sbPathToFileURL(`${process.env.SERVEBENCH_ROOT.replace(/\\/$/, '')}/`) : new URL('../', import.meta.url);",
  'const __sbModuleUrl = (path) => new URL(path, __sbRoot).href;',
].join('\n');

/** A module that throws, naming what is missing, when any of its exports is used. */
function stub(what: string): string {
  const message = JSON.stringify(`${what} is not in the GPU check's one-file CLI (scripts/device-check/bundle.ts); run this command from a checkout with node_modules`);
  return `module.exports = new Proxy({}, { get(_, key) { if (key === '__esModule' || typeof key === 'symbol') return undefined; throw new Error(${message}); } });`;
}

const deviceBundle: Plugin = {
  name: 'servebench-device-bundle',
  setup(b) {
    b.onResolve({ filter: /^@duckdb\/node-api$/ }, () => ({ path: 'duckdb', namespace: 'sb-stub' }));
    b.onResolve({ filter: /^node-llama-cpp$/ }, (args) => (args.namespace === 'sb-llama' ? undefined : { path: 'node-llama-cpp', namespace: 'sb-llama' }));
    b.onLoad({ filter: /.*/, namespace: 'sb-stub' }, (args) => ({ contents: stub(`@duckdb/node-api (${args.path})`), loader: 'js' }));
    b.onLoad({ filter: /.*/, namespace: 'sb-llama' }, () => {
      const reader = join(dirname(require.resolve('node-llama-cpp')), 'gguf', 'readGgufFileInfo.js');
      return {
        contents: `export { readGgufFileInfo } from ${JSON.stringify(reader)};\nexport function getLlama() { throw new Error(${JSON.stringify("llama.cpp's Node binding (node-llama-cpp getLlama) is not in the GPU check's one-file CLI: give run --tokenizer, or run from a checkout with node_modules")}); }\n`,
        loader: 'js',
        resolveDir: ROOT,
      };
    });
    // servebench's own modules (not node_modules) get their source's URL.
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const path = relative(ROOT, args.path);
      if (path.startsWith('..') || path.split(sep).includes('node_modules')) return undefined;
      const source = readFileSync(args.path, 'utf8');
      return { contents: source.replaceAll('import.meta.url', `__sbModuleUrl(${JSON.stringify(path.split(sep).join('/'))})`), loader: 'ts' };
    });
  },
};

/** Writes the bundle to `outfile`; returns its size in bytes. */
export async function bundleCli(outfile: string): Promise<number> {
  const result = await build({
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    legalComments: 'none',
    banner: { js: BANNER },
    plugins: [deviceBundle],
    logLevel: 'error',
    metafile: true,
  });
  return Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
}
