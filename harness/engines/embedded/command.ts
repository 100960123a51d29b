/**
 * `servebench embedded`: start the embedded CPU engine (llama.cpp via node-llama-cpp) on a GGUF
 * model, or on a dummy-weight model of a named shape made on first use in the model cache.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { installedNodeLlamaCpp } from '../../measure/builds/llamacpp-source.ts';
import { booleanOption, numberOption, parseCommandArgs, stringOption, type CommandSpec, type Command } from '../../lib/cli/options.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { servebenchCacheDir } from '../../lib/io/cache-dir.ts';
import { ensureDummyModel, SHAPES } from './dummy-model.ts';
import { startEmbeddedServer } from './server.ts';
import { untilStopSignal } from '../../lib/process/stop-signals.ts';

export function modelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['SERVEBENCH_MODEL_CACHE'] ?? join(servebenchCacheDir(env), 'models');
}

const spec: CommandSpec = {
  name: 'embedded',
  summary: 'start the embedded CPU engine (llama.cpp) with an OpenAI-compatible streaming API',
  usage: 'servebench embedded --model FILE.gguf|SHAPE --port N [options]',
  options: [
    { name: 'model', value: 'FILE|SHAPE', help: `A GGUF file, or a dummy-weight model shape (${Object.keys(SHAPES).join(', ')}) made in the model cache on first use.`, default: 'tiny' },
    { name: 'model-name', value: 'NAME', help: 'Name the model is served under (default: the --model value).' },
    { name: 'host', value: 'HOST', help: 'Address to bind (loopback).', default: '127.0.0.1' },
    { name: 'port', value: 'N', help: 'Port; 0 picks a free one.', default: '8080' },
    { name: 'parallel', value: 'N', help: 'Sequences decoded together (requests beyond wait in a queue).', default: '4' },
    { name: 'context', value: 'N', help: 'Context tokens per sequence.', default: '1024' },
    { name: 'threads', value: 'N', help: 'CPU threads for llama.cpp.', default: '1' },
    { name: 'json', help: 'Print the listening line as JSON.' },
    { name: 'engine-version', value: 'V', help: 'The node-llama-cpp release asked for (run --engine-version, a nightly plan): the engine runs the installed one, and warns when another is asked for (the result records both).' },
  ],
};

export const embeddedCommand: Command = {
  spec,
  async run(argv) {
    const raw = parseCommandArgs(spec, argv);
    const asked = stringOption(spec, raw, 'engine-version');
    const installed = installedNodeLlamaCpp();
    // It can run only the installed release. Never silently: its log says so, and the result records
    // both the release asked for (run.parameters.engine_version) and the one /version reports (run.engine.version).
    if (asked !== undefined && asked !== installed.version && asked !== installed.tag) {
      process.stderr.write(`servebench embedded: WARNING: --engine-version ${asked} asked, but the embedded engine runs the installed node-llama-cpp ${installed.version} (llama.cpp ${installed.tag}); /version reports what runs. For another release use --engine llamacpp, which builds it.\n`);
    }
    const modelArg = stringOption(spec, raw, 'model')!;
    const modelPath = modelArg in SHAPES ? ensureDummyModel(modelCacheDir(), modelArg) : modelArg;
    if (!existsSync(modelPath)) throw usageError(`--model: ${modelArg} is neither a file nor a shape (${Object.keys(SHAPES).join(', ')})`);
    const host = stringOption(spec, raw, 'host')!;
    if (!/^(127\.|::1$|localhost$)/.test(host)) throw usageError(`--host: ${host} is not a loopback address`);
    const int = (name: string, min: number): number => numberOption(spec, raw, name, { min }, true)!;
    const server = await startEmbeddedServer({
      modelPath,
      modelName: stringOption(spec, raw, 'model-name') ?? modelArg,
      host,
      port: int('port', 0),
      parallel: int('parallel', 1),
      contextPerSequence: int('context', 16),
      threads: int('threads', 1),
    });
    process.stdout.write(booleanOption(raw, 'json') ? `${JSON.stringify({ url: server.url })}\n` : `servebench embedded engine listening on ${server.url} (${modelPath})\n`);
    await untilStopSignal();
    await server.close();
    return EXIT.ok;
  },
};
