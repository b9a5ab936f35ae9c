/**
 * Seeded pseudo-random numbers for every algorithm that needs randomness (k-means++, Louvain, splits).
 *
 * mulberry32: a 32-bit state generator by Tommy Ettinger (public domain), period 2^32, uniform in [0, 1).
 * Algorithms take an `rng: () => number` parameter; they never call Math.random.
 */

export type Rng = () => number;

/** Returns a deterministic generator of floats in [0, 1) for the given integer seed. */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher–Yates shuffle of a copy of `items` with the given rng. */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const tmp = out[i]!;
    out[i] = out[j]!;
    out[j] = tmp;
  }
  return out;
}
