/** One rendering of an engine's official image, for run, plan and detect: every {version} is filled in. */
import { describe, expect, it } from 'vitest';
import { officialImage, renderImageTag, type Engine } from '../../harness/contract/engine.ts';
import { loadEngine } from '../../harness/measure/engines/spec-file.ts';

describe('officialImage', () => {
  it('fills every {version} of the tag (run used to replace only the first)', () => {
    expect(renderImageTag('v{version}-cu129-{version}', '0.5.1')).toBe('v0.5.1-cu129-0.5.1');
    const engine = { ...loadEngine('sglang'), image: { repository: 'lmsysorg/sglang', tag: 'v{version}-cu129-{version}' } } as Engine;
    expect(officialImage(engine, '0.5.1')).toBe('lmsysorg/sglang:v0.5.1-cu129-0.5.1');
  });

  it('is null for an engine without an official image', () => {
    expect(officialImage({ ...loadEngine('sim'), image: null } as Engine, '1.0.0')).toBeNull();
  });
});
