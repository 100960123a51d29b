/** Engine versions sort by release, across the spellings engines use. */
import { describe, expect, it } from 'vitest';
import { versionOrderKey } from '../../harness/store/version-order.ts';

const sorted = (versions: string[]): string[] => [...versions].sort((a, b) => (versionOrderKey(a)! < versionOrderKey(b)! ? -1 : 1));

describe('versionOrderKey', () => {
  it('orders semantic versions numerically, pre-releases before their release', () => {
    expect(sorted(['0.11.2', '0.9.0', 'v0.10.0', '0.11.0rc1', '0.11.0', '0.11.0.dev20251101'])).toEqual(['0.9.0', 'v0.10.0', '0.11.0.dev20251101', '0.11.0rc1', '0.11.0', '0.11.2']);
  });

  it("orders llama.cpp's build numbers before its semantic versions (the scheme changed in 2026)", () => {
    expect(sorted(['v0.4.0', 'b8095', 'b4753', 'v0.5.0', 'b5415', 'v0.10.0'])).toEqual(['b4753', 'b5415', 'b8095', 'v0.4.0', 'v0.5.0', 'v0.10.0']);
  });

  it('keeps a beta such as 1.0b2 a pre-release, not a build number', () => {
    expect(sorted(['1.0', '1.0b2', '0.9'])).toEqual(['0.9', '1.0b2', '1.0']);
  });

  it('has no key for an unknown version', () => {
    expect(versionOrderKey(null)).toBeNull();
  });
});
