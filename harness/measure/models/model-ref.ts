/**
 * A `dummy:<shape>:<quantization>` model named on the command line, made ready to launch: the
 * file (made on first use), its tokenizer folder, and the facts a result records about it.
 * Every file is quantized by one llama-quantize, the installed node-llama-cpp's llama.cpp build, so
 * all engine versions run the very same file (same sha256) and differ only in the engine.
 */
import { availableParallelism } from 'node:os';
import { buildLlamaCpp, buildOfCommit } from '../builds/llamacpp-build.ts';
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

/** The installed release's llama-quantize, built first (minutes, once per machine) when missing. */
export async function installedQuantizer(env: NodeJS.ProcessEnv = process.env, onStep?: (step: string) => void): Promise<Quantizer> {
  const source = await installedSource();
  let build = buildOfCommit(source.commit, env);
  if (build === null) {
    onStep?.(`building llama.cpp ${source.tag} (node-llama-cpp ${source.nodeLlamaCpp}) for its llama-quantize, once`);
    build = (await buildLlamaCpp(source, { jobs: availableParallelism(), env })).build;
  }
  return { program: build.binary('llama-quantize'), tag: build.tag, commit: build.commit };
}

export async function resolveDummyModel(text: string, onStep?: (step: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedModel> {
  const ref = parseDummyModelRef(text);
  const quantizer = ref.quantization === 'F16' ? null : await installedQuantizer(env, onStep);
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
