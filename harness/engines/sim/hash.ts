/**
 * Small deterministic hashes. The sim's output text, natural stop lengths and fault draws must be
 * reproducible across runs and machines, so nothing here may touch Math.random or the clock.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over UTF-16 code units: cheap, and we only need stability, not byte-level fidelity. */
export function fnv1a(text: string, basis: number = FNV_OFFSET): number {
  let hash = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** splitmix32 finaliser: spreads nearby inputs (index 0, 1, 2…) over the whole 32-bit range. */
export function mix32(value: number): number {
  let z = (value + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Combines two 32-bit values so that (a, b) and (b, a) differ. */
export function combine(a: number, b: number): number {
  return mix32((Math.imul(a >>> 0, 0x27d4eb2d) ^ (b >>> 0)) >>> 0);
}

/** A uniform draw in [0, 1) from a 32-bit hash. */
export function unitInterval(hash: number): number {
  return (hash >>> 0) / 0x1_0000_0000;
}
