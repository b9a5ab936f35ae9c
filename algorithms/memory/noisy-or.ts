/**
 * The memory lift (noisy-OR): evidence `vote` ∈ [0, 1] of weight `w` lifts a score `s` ∈ [0, 1] to
 *
 *   lift(s, w, vote) = 1 − (1 − s)(1 − w·vote)      (vote > 0)
 *                    = s                            (no vote: s itself, bit for bit)
 *
 * Either piece of evidence alone can make the result high, and extra evidence only adds: lift ≥ s and
 * lift ≥ w·vote, lift ≤ 1. Used wherever a second, independent signal lifts a score: the intent memory's tool
 * votes in search, the capability votes and tool evidence of capability match, and the memory votes of the
 * next step.
 *
 * Source: the intent memory's "semantic OR memory" (algorithms/README.md, "Intent memory"); noisy-OR as in
 * Pearl, Probabilistic Reasoning in Intelligent Systems (1988), §4.3.2.
 */

/** 1 − (1 − score)(1 − weight·vote), or `score` unchanged when there is no vote (undefined or ≤ 0). */
export function noisyOr(score: number, weight: number, vote: number | undefined): number {
  return vote === undefined || !(vote > 0) ? score : 1 - (1 - score) * (1 - weight * vote);
}
