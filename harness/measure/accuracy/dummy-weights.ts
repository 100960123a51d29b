/**
 * Whether the model answering has dummy weights. Seeded random weights (harness/measure/models/
 * dummy-weights.ts, the embedded engine's shapes) produce fluent noise: their GSM8K accuracy is ≈ 0
 * whatever the engine does, so it would gate nothing and is skipped, saying why.
 * Known from, in order: --model-weights; a run's model facts (run.model.file.weights); the model
 * named as a dummy (dummy:<shape>:<quantization>) or as a servebench-made GGUF (servebench writes GGUF
 * files only with dummy weights: servebench-<shape>-….gguf, servebench-dummy-….gguf), by the client or
 * in the path llama-server reports (/props model_path); the embedded engine serving one of its shapes;
 * servebench's simulated engine, which has no weights at all (its tokens are placeholders).
 */
import { requestBounded } from '../../lib/io/bounded-body.ts';
import { MODELS_LIMITS, VERSION_LIMITS, type Endpoint } from '../load/endpoint.ts';
import { DUMMY_PREFIX } from '../models/real-shape-model.ts';

export const MODEL_WEIGHTS = ['auto', 'dummy', 'real'] as const;
export type ModelWeights = (typeof MODEL_WEIGHTS)[number];

/** The embedded engine's and the sim's /v1/models owned_by (harness/engines/embedded/server.ts, harness/engines/sim/server.ts). */
const EMBEDDED_OWNER = 'servebench-embedded';
const SIM_OWNER = 'servebench-sim';
const SERVEBENCH_GGUF = /(^|[/\\])servebench-[^/\\]*\.gguf$/i;

/** What the server says of its model: who serves it (/v1/models owned_by) and its file (/props model_path). */
export interface ServedModel {
  readonly ownedBy: string | null;
  readonly modelPath: string | null;
}

export interface WeightsEvidence {
  readonly flag: ModelWeights;
  /** A run's model file facts (run.model.file.weights): 'dummy' for a dummy:<shape>:<quantization> model; absent outside a run. */
  readonly fileWeights?: 'dummy' | null;
  readonly model: string;
  readonly served: ServedModel;
  /** The embedded engine's dummy shape names (tiny, micro): handed in by the CLI, as measure does not import the engines. */
  readonly embeddedShapes: readonly string[];
}

/** The skip message of a model known to have dummy weights, from how it is known. */
export function dummyWeightsSkip(howKnown: string): string {
  return `dummy weights: ${howKnown}; seeded random weights answer noise, so an accuracy would measure nothing about the engine (GSM8K needs real weights; if this model has them, \`servebench accuracy --model-weights real\` scores it)`;
}

/** Why the model is known to be dummy, as a skip message; null when it is not known to be. */
export function dummyWeightsReason(evidence: WeightsEvidence): string | null {
  if (evidence.flag === 'real') return null;
  if (evidence.flag === 'dummy') return dummyWeightsSkip('--model-weights dummy');
  if (evidence.fileWeights === 'dummy') return dummyWeightsSkip(`the run's model file ${evidence.model} has dummy weights`);
  if (evidence.model.startsWith(DUMMY_PREFIX)) return dummyWeightsSkip(`--model ${evidence.model} is a dummy-weight model`);
  if (SERVEBENCH_GGUF.test(evidence.model)) return dummyWeightsSkip(`--model ${evidence.model} is a servebench-made GGUF file`);
  const path = evidence.served.modelPath;
  if (path !== null && SERVEBENCH_GGUF.test(path)) return dummyWeightsSkip(`the server runs ${path}, a servebench-made GGUF file`);
  if (evidence.served.ownedBy === EMBEDDED_OWNER && evidence.embeddedShapes.includes(evidence.model)) {
    return dummyWeightsSkip(`the embedded engine serves "${evidence.model}", one of its dummy-weight shapes`);
  }
  if (evidence.served.ownedBy === SIM_OWNER) {
    return "no weights: the server is servebench's simulated engine (sim), whose tokens are placeholders, so an accuracy would measure nothing about an engine";
  }
  return null;
}

async function getJson(url: string, headers: Record<string, string>, limits: typeof MODELS_LIMITS): Promise<unknown> {
  try {
    const response = await requestBounded(url, { method: 'GET', headers }, limits);
    return response.status === 200 ? response.json() : null;
  } catch {
    return null; // not this server's way: nothing learned
  }
}

/** Asks the server about `model`; what it does not answer stays null. */
export async function servedModel(endpoint: Endpoint, model: string, headers: Record<string, string>): Promise<ServedModel> {
  const base = `${endpoint.origin}${endpoint.basePath}`;
  const [models, props] = await Promise.all([getJson(`${base}/v1/models`, headers, MODELS_LIMITS), getJson(`${base}/props`, headers, VERSION_LIMITS)]);
  const data = (models as { data?: unknown } | null)?.data;
  const entry = Array.isArray(data) ? (data.find((item) => (item as { id?: unknown } | null)?.id === model) as { owned_by?: unknown } | undefined) : undefined;
  const modelPath = (props as { model_path?: unknown } | null)?.model_path;
  return {
    ownedBy: typeof entry?.owned_by === 'string' ? entry.owned_by : null,
    modelPath: typeof modelPath === 'string' ? modelPath : null,
  };
}
