/**
 * The IVF stage's keep-or-drop rule on the anisotropic property distribution (docs/decisions/ivf-calibration.md):
 * random sets (n 1,000–4,000, d 128, 5–80 clusters, syntheticEmbeddings with meanWeight 1.5, spectrumDecay 1,
 * noise 1.2), 32 fresh queries each, recall@10 against a brute-force scan, for a number of calibration queries and
 * a largest kept probe fraction. Prints how many sets kept the stage and how many fell below recall 0.99.
 *
 *   npx tsx bench/ivf-calibration.ts [--seed 101] [--runs 300] [--queries 128] [--max-fraction 0.25]
 */
import { parseArgs } from "node:util";
import { mulberry32 } from "../algorithms/random/rng.ts";
import { syntheticEmbeddings } from "../algorithms/search/synthetic-embeddings.ts";
import { buildVectorIndex, searchVectorIndex } from "../algorithms/search/vector-index.ts";
import { DEFAULTS } from "../algorithms/vector/index-types.ts";

const { values } = parseArgs({
  options: {
    seed: { type: "string", default: "101" },
    runs: { type: "string", default: "300" },
    queries: { type: "string", default: String(DEFAULTS.ivfCalibrationQueries) },
    "max-fraction": { type: "string", default: String(DEFAULTS.ivfMaxProbeFraction) },
  },
});
// The calibration's sample size is a build default, not an option: set here for this process only.
(DEFAULTS as { ivfCalibrationQueries: number }).ivfCalibrationQueries = Number(values.queries);

function bruteForce(X: Float32Array, d: number, q: Float32Array, k: number): Set<number> {
  const n = X.length / d;
  const s = Array.from({ length: n }, (_, i) => {
    let t = 0;
    for (let j = 0; j < d; j++) t += X[i * d + j]! * q[j]!;
    return { i, t };
  });
  s.sort((a, b) => b.t - a.t || a.i - b.i);
  return new Set(s.slice(0, k).map((h) => h.i));
}

const rng = mulberry32(Number(values.seed));
const runs = Number(values.runs);
const d = 128;
let kept = 0;
let fails = 0;
let lowest = 1;
for (let c = 0; c < runs; c++) {
  const seed = Math.floor(rng() * 2 ** 31);
  const n = 1000 + Math.floor(rng() * 3001);
  const clusters = 5 + Math.floor(rng() * 76);
  const gen = syntheticEmbeddings(d, mulberry32(seed), { meanWeight: 1.5, spectrumDecay: 1, noise: 1.2, clusters });
  const X = gen.sample(n);
  const Q = gen.sample(32);
  const index = buildVectorIndex(X, d, {
    ivfFrom: 1000,
    ivfMaxProbeFraction: Number(values["max-fraction"]),
    rng: mulberry32(seed ^ 0x5eed),
  });
  let recall = 0;
  for (let r = 0; r < 32; r++) {
    const q = Q.subarray(r * d, (r + 1) * d);
    const truth = bruteForce(X, d, q, 10);
    recall += searchVectorIndex(index, q, 10).filter((h) => truth.has(h.id)).length / 10;
  }
  recall /= 32;
  if (index.ivf) kept++;
  if (recall < 0.99) fails++;
  lowest = Math.min(lowest, recall);
}
console.log(
  `queries ${values.queries}, kept up to ${values["max-fraction"]}, seed ${values.seed}: ${runs} sets, stage kept ${kept}, below 0.99 ${fails}, lowest ${lowest.toFixed(4)}`,
);
