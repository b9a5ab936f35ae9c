/**
 * Fused lexical + semantic similarity of a query to a past execution, in [0, 1]:
 *
 *   sim = α·cos⁺ + (1 − α)·bm25 / max_bm25          (α = `semanticWeight`, default 0.5)
 *
 * - cos⁺ = min(1, max(0, cosine)): opposite meanings do not count as similar; float overshoot clipped.
 * - bm25 / max_bm25: the BM25 score divided by the largest BM25 score among the compared executions
 *   (max-normalisation, so the best lexical match gets 1); 0 when max_bm25 ≤ 0.
 * - A missing signal (null: no embedding, or no lexical index) gives its weight to the other one;
 *   both missing → 0.
 *
 * A convex combination of normalised scores ("CombSUM" with max-normalisation): Fox & Shaw, "Combination
 * of multiple searches" (TREC-2, 1994); Lee, "Analyses of multiple evidence combination" (SIGIR 1997).
 */
import { MemoryError } from "./memory-error.ts";

const MODULE = "fuse-similarity";

export interface FuseSimilarityOptions {
  /** Weight α of the semantic (cosine) part, in [0, 1]. Default 0.5. */
  readonly semanticWeight?: number;
}

export const DEFAULTS = { semanticWeight: 0.5 } as const;

/** One execution's raw signals: BM25 score (≥ 0) and cosine similarity ([-1, 1]); null = unavailable. */
export interface SimilaritySignals {
  readonly lexical: number | null;
  readonly semantic: number | null;
}

/** Fuses one pair given the batch's maximum BM25 score. */
export function fuseSimilarity(
  signals: SimilaritySignals,
  maxLexical: number,
  options?: FuseSimilarityOptions,
): number {
  const alpha = options?.semanticWeight ?? DEFAULTS.semanticWeight;
  if (!(alpha >= 0 && alpha <= 1)) {
    throw new MemoryError(MODULE, "bad-option", `semanticWeight = ${alpha} (expected [0, 1])`);
  }
  const { lexical, semantic } = signals;
  if (lexical !== null && !(Number.isFinite(lexical) && lexical >= 0)) {
    throw new MemoryError(MODULE, "bad-lexical", `BM25 score ${lexical} must be finite and >= 0`);
  }
  if (semantic !== null && !Number.isFinite(semantic)) {
    throw new MemoryError(MODULE, "bad-semantic", `cosine ${semantic} is not finite`);
  }
  if (!(Number.isFinite(maxLexical) && maxLexical >= 0)) {
    throw new MemoryError(MODULE, "bad-lexical", `maxLexical = ${maxLexical} must be finite and >= 0`);
  }
  const cos = semantic === null ? null : Math.min(1, Math.max(0, semantic));
  const lex = lexical === null ? null : maxLexical > 0 ? Math.min(1, lexical / maxLexical) : 0;
  if (cos === null && lex === null) return 0;
  if (cos === null) return lex!;
  if (lex === null) return cos;
  return alpha * cos + (1 - alpha) * lex;
}

/** Fuses a batch: max_bm25 is the largest non-null lexical score in the batch. */
export function fuseSimilarities(batch: readonly SimilaritySignals[], options?: FuseSimilarityOptions): number[] {
  let maxLexical = 0;
  for (const s of batch) if (s.lexical !== null && s.lexical > maxLexical) maxLexical = s.lexical;
  return batch.map((s) => fuseSimilarity(s, maxLexical, options));
}
