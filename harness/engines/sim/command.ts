/**
 * `servebench sim`: runs the simulated engine until SIGINT, SIGTERM or SIGHUP. Prints exactly one
 * line when listening (JSON with --json) because tests and scripts spawn it and read that line for
 * the port.
 */
import {
  booleanOption,
  numberOption,
  parseCommandArgs,
  stringOption,
  type CommandSpec,
  type RawOptions,
  type Command,
} from '../../lib/cli/options.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { OUTPUT_FAULTS, PERSONALITIES, SIM_DEFAULTS, engineVersionProblem, isLoopbackHost, type OutputFault, type Personality, type SimConfig } from './config.ts';
import { parseFaultSpec } from './faults.ts';
import { parsePerformanceChanges } from './versioned-performance.ts';
import { startSimServer } from './server.ts';
import { untilStopSignal } from '../../lib/process/stop-signals.ts';

/** --performance-changes for a sim launched by a spec without the flag (engines/sim.yaml): tests and dry runs plant releases through the environment. */
export const PERFORMANCE_CHANGES_ENV = 'SERVEBENCH_SIM_PERFORMANCE_CHANGES';

const spec: CommandSpec = {
  name: 'sim',
  summary: 'Start the simulated engine (an OpenAI-compatible server with a cost model)',
  usage: 'servebench sim [--port N] [--personality NAME] [--zero-cost] [--faults SPEC] [options]',
  options: [
    { name: 'port', value: 'N', help: 'Port to listen on; 0 picks a free one.', default: String(SIM_DEFAULTS.port) },
    { name: 'host', value: 'HOST', help: 'Loopback address to bind (127.x.x.x, ::1 or localhost only).', default: SIM_DEFAULTS.host },
    { name: 'model-name', value: 'NAME', help: 'Served model name; requests naming another model get 404.', default: SIM_DEFAULTS.modelName },
    { name: 'personality', value: 'NAME', help: `Stream shape to imitate: ${PERSONALITIES.join(', ')}.`, default: SIM_DEFAULTS.personality },
    { name: 'prefill-tokens-per-s', value: 'N', help: 'Prefill throughput.', default: String(SIM_DEFAULTS.prefillTokensPerS) },
    { name: 'decode-base-ms', value: 'MS', help: 'Fixed cost of every engine step.', default: String(SIM_DEFAULTS.decodeBaseMs) },
    { name: 'decode-per-seq-ms', value: 'MS', help: 'Extra step cost per decoding sequence.', default: String(SIM_DEFAULTS.decodePerSeqMs) },
    { name: 'max-num-seqs', value: 'N', help: 'Most sequences in the running batch.', default: String(SIM_DEFAULTS.maxNumSeqs) },
    { name: 'kv-tokens', value: 'N', help: 'KV budget; a request reserves prompt + max_tokens at admission.', default: String(SIM_DEFAULTS.kvTokens) },
    { name: 'max-batched-tokens', value: 'N', help: 'Prefill tokens per step (longer prompts are chunked).', default: String(SIM_DEFAULTS.maxBatchedTokens) },
    { name: 'zero-cost', help: 'All costs 0 and no batch/KV limits unless set: measures the client, not the engine.' },
    { name: 'steps-per-flush', value: 'N', help: 'Engine steps per event-loop turn between writes (default: 16 with --zero-cost, else 1).' },
    { name: 'faults', value: 'SPEC', help: 'Fault probabilities, e.g. "http500=0.02,http429=0.01,reset=0.01,malformed=0.01,stall=0.01,early_stop=0.01,truncate=0.01". Also: endless (valid tokens past max_tokens, never finished), http500_endless (a 500 whose body never ends), error_event (the personality\'s mid-stream error: an error event, or for trtllm a cut response; not streamed, a 500).' },
    { name: 'output-fault', value: 'KIND', help: `A fault in every answer's words: ${OUTPUT_FAULTS.join(', ')} (corrupt-output: other words than the sim's deterministic ones; cache-differs: other words when the prompt was cached).`, default: SIM_DEFAULTS.outputFault },
    { name: 'stall-ms', value: 'MS', help: 'Pause of the stall fault.', default: String(SIM_DEFAULTS.stallMs) },
    { name: 'seed', value: 'N', help: 'Seed of the fault draws.', default: String(SIM_DEFAULTS.seed) },
    { name: 'fault-seed', value: 'N', help: 'Alias of --seed.' },
    { name: 'run-noise', value: 'SIGMA', help: 'Run-to-run noise: each launch runs every cost at a speed factor exp(SIGMA·z), z drawn per launch from --seed and the process id (a launch of its own); 0 = every launch alike.', default: String(SIM_DEFAULTS.runNoise) },
    { name: 'engine-version', value: 'V', help: 'The release this launch plays: what GET /version reports, and what --performance-changes apply by (default: <servebench version>-sim).' },
    { name: 'performance-changes', value: 'SPEC', help: 'Planted changes of speed by version, e.g. "1.3.0:1.5,1.5.0:0.8": from 1.3.0 on every cost is 1.5 times as large (slower), from 1.5.0 on 1.5 × 0.8; a launch runs at the product of the factors at or below --engine-version (in detect\'s version order; versions digits first). Composes with --run-noise. Default: $SERVEBENCH_SIM_PERFORMANCE_CHANGES, so that a launch through engines/sim.yaml (which has no flag for it: `servebench run --engine sim`, ab, confirm) plays planted releases in tests and dry runs.' },
    { name: 'sse-crlf', help: 'End SSE lines with CRLF instead of LF.' },
    { name: 'sse-no-space', help: 'Write "data:{…}" instead of "data: {…}".' },
    { name: 'keepalive-ms', value: 'MS', help: 'Send ": keep-alive" SSE comments on open streams every MS; 0 = never.', default: String(SIM_DEFAULTS.keepaliveMs) },
    { name: 'idle-timeout-ms', value: 'MS', help: 'Close a keep-alive connection idle this long (uvicorn and cpp-httplib: 5000); 0 = never.', default: String(SIM_DEFAULTS.idleTimeoutMs) },
    { name: 'max-requests-per-connection', value: 'N', help: 'Close a connection after N requests, announced with Connection: close (default: the personality\'s; llamacpp 100, others 0 = no limit).' },
    { name: 'close-after-stream', value: 'on|off', help: 'Close the connection right after each streamed response, unannounced, as llama-server does (default: on for llamacpp, else off).' },
    { name: 'json', help: 'Print the listening line as JSON: {"url","port","personality"}.' },
  ],
  epilog: [
    'Endpoints: GET /health, /version, /v1/models, /metrics; POST /v1/completions, /v1/chat/completions.',
    'Sim-only: GET /ground-truth (per-request write times in the server clock) and DELETE /ground-truth (reset).',
    'Tokens are whitespace-separated words; chat adds 4 per message plus 3 for the template.',
  ].join('\n'),
};

function onOff(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw usageError(`--close-after-stream: "${value}" is not on or off`);
  return value === 'on';
}

/** Only flags the user gave become config fields, so zero-cost mode can fill the others. */
function given(raw: RawOptions, name: string): boolean {
  return raw[name] !== undefined;
}

export function simConfigFromArgs(argv: readonly string[]): Partial<SimConfig> & { json: boolean } {
  const raw = parseCommandArgs(spec, argv);
  const number = (name: string, bounds: Parameters<typeof numberOption>[3], integer = false): number | undefined =>
    given(raw, name) ? numberOption(spec, raw, name, bounds, integer) : undefined;

  const host = stringOption(spec, raw, 'host')!;
  if (!isLoopbackHost(host)) throw usageError(`--host: "${host}" is not a loopback address; the sim only binds 127.x.x.x, ::1 or localhost`);
  const personality = stringOption(spec, raw, 'personality')!;
  if (!(PERSONALITIES as readonly string[]).includes(personality)) {
    throw usageError(`--personality: unknown "${personality}"; allowed: ${PERSONALITIES.join(', ')}`);
  }
  const modelName = stringOption(spec, raw, 'model-name')!;
  if (modelName.trim() === '') throw usageError('--model-name: must not be empty');
  const seed = number('seed', {}, true);
  const faultSeed = number('fault-seed', {}, true);
  if (seed !== undefined && faultSeed !== undefined && seed !== faultSeed) throw usageError('--fault-seed is an alias of --seed; give one of them');
  const faultsText = stringOption(spec, raw, 'faults');
  const changesText = stringOption(spec, raw, 'performance-changes') ?? (process.env[PERFORMANCE_CHANGES_ENV] || undefined);
  const performanceChanges = changesText === undefined ? undefined : parsePerformanceChanges(changesText, raw['performance-changes'] === undefined ? `performance-changes (from $${PERFORMANCE_CHANGES_ENV})` : 'performance-changes');
  // Its default is not in the option table: it names servebench's version, which would put every release's number in docs/cli.md.
  const engineVersion = stringOption(spec, raw, 'engine-version') ?? SIM_DEFAULTS.engineVersion;
  const versionProblem = engineVersionProblem(engineVersion, performanceChanges ?? []);
  if (versionProblem !== null) throw usageError(`--engine-version: ${versionProblem}`);
  return {
    host,
    port: numberOption(spec, raw, 'port', { min: 0, max: 65535 }, true)!,
    modelName,
    personality: personality as Personality,
    prefillTokensPerS: number('prefill-tokens-per-s', { min: 0, exclusiveMin: true }),
    decodeBaseMs: number('decode-base-ms', { min: 0 }),
    decodePerSeqMs: number('decode-per-seq-ms', { min: 0 }),
    maxNumSeqs: number('max-num-seqs', { min: 1 }, true),
    kvTokens: number('kv-tokens', { min: 2 }, true),
    maxBatchedTokens: number('max-batched-tokens', { min: 1 }, true),
    zeroCost: booleanOption(raw, 'zero-cost'),
    stepsPerFlush: number('steps-per-flush', { min: 1 }, true),
    faults: faultsText === undefined ? {} : parseFaultSpec(faultsText),
    outputFault: stringOption(spec, raw, 'output-fault') as OutputFault,
    stallMs: number('stall-ms', { min: 0 }),
    seed: seed ?? faultSeed,
    runNoise: number('run-noise', { min: 0, max: 2 }),
    engineVersion,
    performanceChanges,
    sseCrlf: booleanOption(raw, 'sse-crlf'),
    sseNoSpace: booleanOption(raw, 'sse-no-space'),
    keepaliveMs: number('keepalive-ms', { min: 0 }),
    idleTimeoutMs: number('idle-timeout-ms', { min: 0 }),
    maxRequestsPerConnection: number('max-requests-per-connection', { min: 0 }, true),
    closeAfterStream: onOff(stringOption(spec, raw, 'close-after-stream')),
    json: booleanOption(raw, 'json'),
  };
}

export const simCommand: Command = {
  spec,
  async run(argv) {
    const { json, ...config } = simConfigFromArgs(argv);
    const server = await startSimServer(config);
    // Listen for signals before announcing the port, so whoever reads the line can stop us at once.
    const signal = untilStopSignal();
    const { personality } = server.config;
    process.stdout.write(json
      ? `${JSON.stringify({ url: server.url, port: server.port, personality })}\n`
      : `servebench sim listening on ${server.url} (personality ${personality})\n`);
    await signal;
    await server.close();
    return EXIT.ok;
  },
};
