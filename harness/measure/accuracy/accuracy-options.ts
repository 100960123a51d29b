/**
 * `servebench accuracy` options: the table (which makes --help) and the one normalize step that turns
 * raw flags into a typed, defaulted config, naming each bad value and its fix.
 */
import { usageError } from '../../lib/errors.ts';
import { booleanOption, numberOption, stringOption, type CommandSpec, type RawOptions } from '../../lib/cli/options.ts';
import {
  ACCURACY_TASKS,
  DEFAULT_ACCURACY_CONCURRENCY,
  DEFAULT_PROBLEMS,
  DEFAULT_SHOTS,
  GSM8K_TEST_PROBLEMS,
  MAX_ACCURACY_CONCURRENCY,
  MAX_ACCURACY_SEED,
  MAX_SHOTS,
} from '../../contract/accuracy.ts';
import { APIS } from '../../contract/common.ts';
import { parseEndpoint } from '../load/endpoint.ts';
import { MODEL_WEIGHTS, type ModelWeights } from './dummy-weights.ts';
import type { AccuracyPlan } from './run-accuracy.ts';

/** Node timers hold at most 2^31 − 1 ms. */
const MAX_TIMEOUT_S = Math.floor((2 ** 31 - 1) / 1000);

export const accuracySpec: CommandSpec = {
  name: 'accuracy',
  summary: 'score a running OpenAI-compatible server on GSM8K (lm-eval\'s gsm8k setting) with a 95% interval',
  usage: 'servebench accuracy --endpoint URL --model NAME [options]',
  options: [
    { name: 'endpoint', value: 'URL', help: 'Base URL of the server, e.g. http://127.0.0.1:8000 (a trailing /v1 is accepted).' },
    { name: 'model', value: 'NAME', help: 'Model name sent in each request (as the server serves it).' },
    { name: 'api', value: 'API', help: `${APIS.join(' or ')}: lm-eval's few-shot text as one prompt, or the exemplars as chat turns.`, default: 'completions' },
    { name: 'task', value: 'TASK', help: `The task (${ACCURACY_TASKS.join(', ')}).`, default: 'gsm8k' },
    { name: 'problems', value: 'N', type: 'integer', help: `Problems in the seeded slice (of ${GSM8K_TEST_PROBLEMS}).`, default: String(DEFAULT_PROBLEMS) },
    { name: 'seed', value: 'N', type: 'integer', help: 'Picks the slice and the exemplars: the same seed asks the same problems everywhere.', default: '0' },
    { name: 'shots', value: 'N', type: 'integer', help: `Few-shot exemplars before each problem (0 to ${MAX_SHOTS}).`, default: String(DEFAULT_SHOTS) },
    { name: 'concurrency', value: 'N', type: 'integer', help: 'Requests in flight at once.', default: String(DEFAULT_ACCURACY_CONCURRENCY) },
    { name: 'timeout', value: 'S', type: 'number', help: 'Per-request timeout in seconds.', default: '600' },
    { name: 'api-key', value: 'KEY', help: 'Bearer token (default: $OPENAI_API_KEY).' },
    { name: 'model-weights', value: 'KIND', help: `${MODEL_WEIGHTS.join(', ')}: dummy weights answer noise and the task is skipped; auto knows servebench's dummy models by name and by what the server reports.`, default: 'auto' },
    { name: 'json', help: 'Print the accuracy block as JSON instead of the summary.' },
    { name: 'out', value: 'FILE', machineLocal: true, help: 'Also write the accuracy block to FILE (never over an existing file).' },
  ],
  epilog: [
    'Examples:',
    '  servebench accuracy --endpoint http://127.0.0.1:8000 --model Qwen/Qwen3-0.6B',
    '  servebench accuracy --endpoint http://127.0.0.1:8080 --model m --api chat --problems 500 --out gsm8k.json',
    '',
    'Exit status: 0 it ran (whatever the accuracy); 1 some requests failed (counted by class, not scored);',
    '2 bad input, unreachable server, or a model with dummy weights (skipped, saying why); 3 the block could',
    'not be written (it went to stdout); 130/143/129 stopped by a signal (the problems answered so far are kept).',
    'What is asked and how it is scored: docs/accuracy.md.',
  ].join('\n'),
};

/** The plan runAccuracy takes (the task spec a workload may declare, and the server), and what only the command has. */
export interface AccuracyConfig extends AccuracyPlan {
  readonly modelWeights: ModelWeights;
  readonly json: boolean;
  readonly out: string | null;
}

function required(raw: RawOptions, name: string): string {
  const value = stringOption(accuracySpec, raw, name);
  if (value === undefined || value.trim() === '') throw usageError(`--${name} is required; see \`servebench accuracy --help\``);
  return value;
}

function oneOf<T extends string>(raw: RawOptions, name: string, values: readonly T[]): T {
  const value = stringOption(accuracySpec, raw, name)!;
  if (!(values as readonly string[]).includes(value)) throw usageError(`--${name}: "${value}" is not one of ${values.join(', ')}`);
  return value as T;
}

export function normalizeAccuracyOptions(raw: RawOptions, env: NodeJS.ProcessEnv = process.env): AccuracyConfig {
  const endpoint = parseEndpoint(required(raw, 'endpoint'));
  const int = (name: string, min: number, max: number): number => numberOption(accuracySpec, raw, name, { min, max }, true)!;
  const shots = int('shots', 0, MAX_SHOTS);
  const apiKey = stringOption(accuracySpec, raw, 'api-key') ?? env['OPENAI_API_KEY'];
  const authorization = apiKey ? `Bearer ${apiKey}` : endpoint.basicAuth;
  return {
    endpoint,
    model: required(raw, 'model'),
    api: oneOf(raw, 'api', APIS),
    task: oneOf(raw, 'task', ACCURACY_TASKS),
    problems: int('problems', 1, GSM8K_TEST_PROBLEMS - shots),
    seed: int('seed', 0, MAX_ACCURACY_SEED),
    shots,
    concurrency: int('concurrency', 1, MAX_ACCURACY_CONCURRENCY),
    timeoutMs: numberOption(accuracySpec, raw, 'timeout', { min: 0, exclusiveMin: true, max: MAX_TIMEOUT_S })! * 1000,
    headers: authorization ? { authorization } : {},
    modelWeights: oneOf(raw, 'model-weights', MODEL_WEIGHTS),
    json: booleanOption(raw, 'json'),
    out: stringOption(accuracySpec, raw, 'out') ?? null,
  };
}
