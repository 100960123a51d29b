/**
 * The main job with no GPU and no Docker: make the dummy `tiny` model if missing, run the `smoke`
 * workload, with prompts of exact token lengths (the model's tokenizer.json), on the embedded CPU
 * engine (llama.cpp) at concurrency 1, 2 and 4 through `servebench run`, write the result into a
 * scratch copy of results/ (out/demo/results/: the tracked results/ never gets a demo file that a
 * contributor's `git add -A` would submit), compile that copy into build/data, build the site and
 * serve it on 127.0.0.1.
 * Usage: npm run demo [-- --no-serve] [-- extra `servebench run` flags]
 */
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main } from '../harness/cli.ts';
import { ensureDummyModel, ensureDummyTokenizer } from '../harness/engines/embedded/dummy-model.ts';
import { modelCacheDir } from '../harness/engines/embedded/command.ts';
import { serveStatic } from './static-server.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const serve = !process.argv.includes('--no-serve');
const runFlags = process.argv.slice(2).filter((arg) => arg !== '--no-serve');

const results = `${REPO}out/demo/results`;
rmSync(results, { recursive: true, force: true });
cpSync(`${REPO}results`, results, { recursive: true });

process.stderr.write('demo: preparing the dummy tiny model (first time only)…\n');
const tokenizer = ensureDummyTokenizer(ensureDummyModel(modelCacheDir(), 'tiny'), 'tiny');
const ran = await main([
  'run', '--engine', 'embedded', '--model', 'tiny', '--workload', 'smoke', '--tokenizer', tokenizer,
  '--concurrency', '1,2,4', '--max-num-seqs', '4', '--results-dir', results, ...runFlags,
]);
if (ran !== 0) process.exit(ran);

process.stderr.write('\ndemo: compiling results/ and the demo run (out/demo/results) into build/data…\n');
// Files that fail validation are reported and left out; the demo goes on with the rest.
await main(['compile', '--results', results, '--out', 'build/data', '--allow-invalid']);

process.stderr.write('\ndemo: building the site…\n');
execFileSync(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build', '--silent'], { cwd: REPO, stdio: 'inherit', env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', SERVEBENCH_DATA: 'build/data' } });
if (serve) {
  const site = await serveStatic(`${REPO}dist/site`, 4321).catch(() => serveStatic(`${REPO}dist/site`));
  process.stdout.write(`\nservebench site: ${site.url}/  (Ctrl-C to stop)\n`);
  process.once('SIGINT', () => void site.close().then(() => process.exit(0)));
} else {
  process.stdout.write(`\nservebench site built in dist/site (serve it with: npm run demo)\n`);
}
