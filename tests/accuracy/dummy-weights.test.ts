/** How a model is known to have dummy weights, from each kind of evidence; and what is not evidence. */
import { describe, expect, it } from 'vitest';
import { dummyWeightsReason, type WeightsEvidence } from '../../harness/measure/accuracy/dummy-weights.ts';

const none = { ownedBy: null, modelPath: null };
const base: WeightsEvidence = { flag: 'auto', model: 'Qwen/Qwen3-0.6B', served: none, embeddedShapes: ['tiny', 'micro'] };

describe('dummyWeightsReason', () => {
  it.each([
    ['--model-weights dummy', { flag: 'dummy' }, '--model-weights dummy'],
    ["a run's dummy model file", { fileWeights: 'dummy' }, "the run's model file Qwen/Qwen3-0.6B has dummy weights"],
    ['a dummy:<shape> model', { model: 'dummy:llama-3.2-1b:F16' }, '--model dummy:llama-3.2-1b:F16 is a dummy-weight model'],
    ['a servebench-made GGUF named by the client', { model: '/cache/servebench-dummy-tiny-seed1-0a1b2c3d4e.gguf' }, 'is a servebench-made GGUF file'],
    ["a servebench-made GGUF in llama-server's /props", { served: { ownedBy: 'llamacpp', modelPath: 'C:\\cache\\servebench-qwen3-0.6b-q8_0-0a1b2c3d4e.gguf' } }, 'the server runs C:\\cache\\servebench-qwen3-0.6b-q8_0-0a1b2c3d4e.gguf'],
    ['the embedded engine serving a shape', { model: 'micro', served: { ownedBy: 'servebench-embedded', modelPath: null } }, 'the embedded engine serves "micro"'],
  ] as const)('knows %s', (_, change, why) => {
    const reason = dummyWeightsReason({ ...base, ...change } as WeightsEvidence);
    expect(reason).toMatch(/^dummy weights: /);
    expect(reason).toContain(why);
  });

  it("knows servebench's simulated engine, which has no weights at all, by its owned_by; --model-weights real still overrides", () => {
    const sim = { ...base, model: 'sim-model', served: { ownedBy: 'servebench-sim', modelPath: null } };
    expect(dummyWeightsReason(sim)).toMatch(/^no weights: the server is servebench's simulated engine \(sim\), whose tokens are placeholders/);
    expect(dummyWeightsReason({ ...sim, flag: 'real' })).toBeNull();
  });

  it.each([
    ['a published model', {}],
    ['--model-weights real over every other sign', { flag: 'real', model: 'dummy:llama-3.2-1b:F16', fileWeights: 'dummy' }],
    ['a real GGUF', { model: '/models/Qwen3-0.6B-Q4_K_M.gguf', served: { ownedBy: 'llamacpp', modelPath: '/models/Qwen3-0.6B-Q4_K_M.gguf' } }],
    ['a shape name on another server', { model: 'tiny', served: { ownedBy: 'vllm', modelPath: null } }],
    ['the embedded engine on a real GGUF', { model: 'my-model', served: { ownedBy: 'servebench-embedded', modelPath: null } }],
    ['a folder named like servebench', { model: '/srv/servebench-models/Qwen3.gguf' }],
  ] as const)('does not take %s for dummy', (_, change) => {
    expect(dummyWeightsReason({ ...base, ...change } as WeightsEvidence)).toBeNull();
  });
});
