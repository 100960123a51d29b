/**
 * A `dummy:<shape>:<quantization>` model named on the command line, made ready to launch: the
 * file (made on first use), its tokenizer folder, and the facts a result records about it.
 * Every file is quantized by one llama-quantize, the installed node-llama-cpp's llama.cpp build, so
 * all engine versions run the very same file (same sha256) and differ only in the engine.
 */
import { usageError } from '../../lib/errors.ts';
import { buildOfCommit } from '../builds/llamacpp-build.ts';
import { installedSource } from '../builds/llamacpp-source.ts';
import type { RunBlock } from '../../contract/result.ts';
import { ensureRealShapeModel, parseDummyModelRef, type Quantizer } from './real-shape-model.ts';

export type ModelFileFacts = NonNullable<RunBlock['model']['file']>;

export interface ResolvedModel {
  readonly path: string;
  readonly tokenizerDir: string;
  readonly id: string;
  readonly file: ModelFileFacts;
}

export async function installedQuantizer(env: NodeJS.ProcessEnv = process.env): Promise<Quantizer> {
  const source = await installedSource();
  const build = buildOfCommit(source.commit, env);
  if (build === null) throw usageError(`dummy models are quantized with llama.cpp ${source.tag}'s llama-quantize (node-llama-cpp ${source.nodeLlamaCpp}); build it first: servebench llamacpp build`);
  return { program: build.binary('llama-quantize'), tag: build.tag, commit: build.commit };
}

export async function resolveDummyModel(text: string, onStep?: (step: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedModel> {
  const ref = parseDummyModelRef(text);
  const quantizer = ref.quantization === 'F16' ? null : await installedQuantizer(env);
  const { path, manifest } = await ensureRealShapeModel(ref, { quantizer, env, ...(onStep ? { onStep } : {}) });
  return {
    path,
    tokenizerDir: manifest.tokenizer.dir,
    id: manifest.model_id,
    file: {
      format: 'gguf',
      weights: 'dummy',
      shape: manifest.shape,
      config: manifest.config,
      parameters: manifest.parameters,
      quantization: manifest.quantization,
      sha256: manifest.sha256,
      bytes: manifest.bytes,
      tokenizer: { source: manifest.tokenizer.source, sha256: manifest.tokenizer.sha256, license: manifest.tokenizer.license },
      quantizer: manifest.quantizer?.tag ?? null,
    },
  };
}
