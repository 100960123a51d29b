/**
 * The main job with no GPU and no Docker: make the dummy `tiny` model if missing, run the `smoke`
 * workload, with prompts of exact token lengths (the model's tokenizer.json), on the embedded CPU
 * engine (llama.cpp) at concurrency 1, 2 and 4 through
 * `servebench run`, write the result into results/, print the summary.
 * Usage: npm run demo [-- extra `servebench run` flags]
 */
import { main } from '../harness/cli.ts';
import { ensureDummyModel, ensureDummyTokenizer } from '../harness/embedded/dummy-model.ts';
import { modelCacheDir } from '../harness/embedded/command.ts';

process.stderr.write('demo: preparing the dummy tiny model (first time only)…\n');
const tokenizer = ensureDummyTokenizer(ensureDummyModel(modelCacheDir(), 'tiny'), 'tiny');
process.exitCode = await main([
  'run', '--engine', 'embedded', '--model', 'tiny', '--workload', 'smoke', '--tokenizer', tokenizer,
  '--concurrency', '1,2,4', '--max-num-seqs', '4', ...process.argv.slice(2),
]);
