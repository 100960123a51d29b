/**
 * The fidelity probe against the real llama-servers servebench builds (b4753, v0.4.0) and the
 * embedded engine (node-llama-cpp), on a dummy-weight model servebench writes (nothing here is a
 * fake): the same build twice agrees exactly, and the agreement between builds is what
 * docs/metrics.md#output-fidelity derives its threshold from. FIDELITY_SHAPE picks the model
 * (default micro), or FIDELITY_MODEL a GGUF file servebench made (dummy:qwen3-0.6b:Q4_K_M's);
 * the numbers are printed for the docs.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { listLlamaCppBuilds } from '../../harness/measure/builds/llamacpp-build.ts';
import { ensureDummyModel } from '../../harness/engines/embedded/dummy-model.ts';
import { startEmbeddedServer } from '../../harness/engines/embedded/server.ts';
import { runFidelityProbe } from '../../harness/measure/fidelity/run-fidelity.ts';
import { compareAnswers, fidelityVerdict } from '../../harness/store/fidelity-agreement.ts';
import type { Fidelity } from '../../harness/contract/fidelity.ts';
import { startLlamaServer } from '../llamacpp/llama-server.ts';

const shape = process.env['FIDELITY_MODEL'] ?? process.env['FIDELITY_SHAPE'] ?? 'micro';
const model = process.env['FIDELITY_MODEL'] ?? ensureDummyModel(mkdtempSync(`${tmpdir()}/sb-fidelity-models-`), shape);
const body = { model: 'm', temperature: 0, ignoreEos: true, extraBody: {} };

async function probe(url: string): Promise<Fidelity> {
  const fidelity = await runFidelityProbe({ endpoint: url, api: 'completions', body, headers: {}, checkCache: true });
  expect(fidelity.error).toBeNull();
  return fidelity;
}

async function probeBuild(tag: string, port: number): Promise<Fidelity> {
  const build = listLlamaCppBuilds().find((b) => b.tag === tag)!;
  const server = await startLlamaServer(build, model, ['--parallel', '2', '--ctx-size', '2048'], port);
  try {
    return await probe(server.url);
  } finally {
    server.stop();
  }
}

describe('the fidelity probe on upstream llama.cpp and the embedded engine', () => {
  it('the same build twice is identical; builds and engines agree as measured', { timeout: 600_000 }, async () => {
    const first = await probeBuild('b4753', 18_790);
    const again = await probeBuild('b4753', 18_791);
    const next = await probeBuild('v0.4.0', 18_792);
    const embedded = await startEmbeddedServer({ modelPath: model, modelName: 'm', host: '127.0.0.1', port: 0, parallel: 1, contextPerSequence: 1024, threads: 1 });
    let viaEmbedded: Fidelity;
    try {
      viaEmbedded = await probe(embedded.url);
    } finally {
      await embedded.close();
    }
    for (const [name, run] of [['b4753 twice', again], ['b4753 vs v0.4.0', next], ['embedded vs b4753', viaEmbedded]] as const) {
      const agreement = compareAnswers(run.outputs, first.outputs)!;
      console.log(`${shape} ${name}: ${JSON.stringify(agreement)} → ${fidelityVerdict(agreement)}; cache ${run.cache_equality?.verdict}`);
    }
    expect(first.outputs.every((o) => o.token_ids?.length === 16 && o.logprobs?.length === 16)).toBe(true);
    expect(compareAnswers(again.outputs, first.outputs)).toMatchObject({ identicalShare: 1, unit: 'token' });
    expect(fidelityVerdict(compareAnswers(next.outputs, first.outputs)!)).toBe('pass');
    // The embedded engine answers the same text as llama-server (it once dropped the first piece's leading space).
    expect(compareAnswers(viaEmbedded!.outputs, first.outputs)).toMatchObject({ identicalShare: 1 });
    expect(first.cache_equality?.verdict).toBe('identical');
    expect(next.cache_equality?.verdict).toBe('identical');
  });
});
