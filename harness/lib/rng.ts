/**
 * Seeded, platform-independent randomness: the same seed gives the same schedule and prompts on
 * every machine. Integer core (sfc32 seeded through splitmix32); each use gets its own stream
 * (named by a label) so adding draws in one place never shifts another.
 */

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** FNV-1a over the label, so streams are named rather than numbered. */
export function hashLabel(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Standard normal (Box–Muller). */
  normal(): number;
  /** Gamma(shape, scale) by Marsaglia–Tsang. */
  gamma(shape: number, scale: number): number;
}

export function createRng(seed: number, label: string): Rng {
  const init = splitmix32((seed >>> 0) ^ hashLabel(label));
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const nextU32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) nextU32();

  const next = (): number => nextU32() / 4294967296;
  const normal = (): number => {
    const u = 1 - next();
    const v = next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const gamma = (shape: number, scale: number): number => {
    if (shape < 1) {
      // Boost: Gamma(k) = Gamma(k + 1) · U^(1/k).
      const u = 1 - next();
      return gamma(shape + 1, scale) * u ** (1 / shape);
    }
    const d3 = shape - 1 / 3;
    const c3 = 1 / Math.sqrt(9 * d3);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = normal();
        v = 1 + c3 * x;
      } while (v <= 0);
      v = v * v * v;
      const u = 1 - next();
      if (Math.log(u) < 0.5 * x * x + d3 - d3 * v + d3 * Math.log(v)) return d3 * v * scale;
    }
  };
  return { next, int: (n) => Math.floor(next() * n), normal, gamma };
}
