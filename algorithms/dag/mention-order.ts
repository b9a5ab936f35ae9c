/**
 * Mention order: where the history holds no precedence evidence for a pair of selected tools, the
 * order in which the request's own intent text mentions them may orient the edge between them.
 *
 *   words(T)      = tokenize(name of T) minus GENERIC_WORDS, minus every word of another selected tool's name
 *                   (the tool's distinctive name words among the selection; search/tokenize.ts: identifiers
 *                   split, lowercased, light stem — "getWildlifeSpecies" → wildlife, specie)
 *   mention(T)    = the smallest token index of the intent (tokenize(intent)) holding a word of words(T);
 *                   undefined when none occurs (the tool is not mentioned)
 *   lean(A → B)   = sign(mention(B) − mention(A)) when both are mentioned, else 0
 *
 * Applied (build-execution-dag.ts) to the non-direct candidates (multi-hop paths, schema and data-flow prior
 * proposals) of pairs with no precedence evidence — n(A→B) + n(B→A) < minObserved (precedence.ts counts;
 * minObserved 1: neither order observed) — through role-orientation.ts's pass with this lean: a candidate
 * against a non-zero lean is reversed (or dropped when the reverse is also a candidate). A direct edge (learned
 * or declared) and a pair observed in either order keep their direction: observed precedence always wins over
 * mention order. The text is the request's content; the order of the caller's tool list never counts.
 *
 * Source: a request that names two steps names them in the order the user thinks of them, most often the order
 * of the data flow ("list the species …, then the conservation projects for these species"); the distinctive
 * words follow the IDF idea of search (words the other selected tools share tell them apart from none).
 *
 * Decision (the project lead's; measured in algorithms/README.md, "DAG", and bench/decisions.md): the
 * request's own text may orient a pair only where the history is
 * silent; it is content the user wrote, unlike the order of the tools list, which never counts.
 * Chosen on training traces only (NESTFUL's 150 training traces, 5 folds: each held-out trace's DAG built from
 * the other folds, with that trace's own intent): edge F1 0.797 → 0.840, on the traces whose tools the other
 * folds cover 0.851 → 0.883 (τ-b 0.775 → 0.849); minObserved 1, 2 and 3 give the same F1, 1 the better τ-b over
 * all traces (0.773 against 0.764), so DEFAULTS.minObserved = 1 (neither order observed).
 *
 * Invariants: mention(T) is undefined for a tool without distinctive words; two tools never share a position
 * (their distinctive words are disjoint, and one intent token is one word); lean(A → B) = −lean(B → A);
 * lean is 0 without an intent; pure, no dependence on the order of `tools`.
 */

import { tokenize } from "../search/tokenize.ts";
import type { DependencyEdge } from "./dependency-edge.ts";

/** Name words too generic to say which tool a phrase means (verbs and nouns most tool names share). */
export const GENERIC_WORDS: ReadonlySet<string> = new Set(
  [
    "get",
    "set",
    "list",
    "search",
    "find",
    "fetch",
    "retrieve",
    "create",
    "update",
    "delete",
    "remove",
    "add",
    "check",
    "calculate",
    "compute",
    "make",
    "run",
    "call",
    "query",
    "lookup",
    "look",
    "up",
    "api",
    "tool",
    "info",
    "information",
    "detail",
    "details",
    "data",
    "by",
    "all",
    "new",
    "v1",
    "v2",
    "request",
    "result",
  ].map((w) => tokenize(w)[0] ?? w),
);

export const DEFAULTS = {
  /** Pairs with fewer observations in either order than this count as unobserved (precedence.ts counts). */
  minObserved: 1,
  /** Edges of the mention chain for a selection nothing relates (0 = abstain). */
  chainEdges: 1,
} as const;

/** The first intent token index naming each tool (index-aligned with `names`); undefined = not mentioned. */
export function mentionPositions(intent: string, names: readonly string[]): (number | undefined)[] {
  return mentionPositionsOf(tokenize(intent), names.map(nameWords));
}

/** The name words of one tool: tokenize(name) minus GENERIC_WORDS (words(T) of the header before the distinctive cut). */
export function nameWords(name: string): ReadonlySet<string> {
  return new Set(tokenize(name).filter((w) => !GENERIC_WORDS.has(w)));
}

/** mentionPositions over an already tokenized intent and each tool's nameWords (index-aligned). */
export function mentionPositionsOf(
  tokens: readonly string[],
  words: readonly ReadonlySet<string>[],
): (number | undefined)[] {
  const owners = new Map<string, number>();
  for (const ws of words) for (const w of ws) owners.set(w, (owners.get(w) ?? 0) + 1);
  const distinctive = words.map((ws) => new Set([...ws].filter((w) => owners.get(w) === 1)));
  return distinctive.map((ws) => {
    if (ws.size === 0) return undefined;
    const k = tokens.findIndex((t) => ws.has(t));
    return k < 0 ? undefined : k;
  });
}

/** lean(a → b) of the header from the two positions: 1 (a mentioned first), −1, or 0 (either not mentioned). */
export function mentionLean(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined || a === b) return 0;
  return a < b ? 1 : -1;
}

/** An edge proposed by mentionChain: the two ends' intent positions. */
export interface MentionDependency extends DependencyEdge {
  readonly mentioned: { readonly from: number; readonly to: number };
}

/**
 * The mention chain, for a selection no evidence relates at all (no learned, declared or proposed candidate):
 *
 *   the mentioned tools sorted by mention(T);  T₁ → T₂ → … → T_k, each edge one hop of strength `strength`
 *   (MENTION_CHAIN_STRENGTH 0.1, below every learned edge and every data-flow prior proposal)
 *
 * An empty list when fewer than two selected tools are mentioned. `limit` caps the edges (1: the first pair only).
 * Abstaining (no edge), the first pair only, or the whole chain: chosen on training traces only by edge F1
 * (5 folds, held-out traces' DAGs built from the other folds with their own intents). Seal-Tools, whose tools
 * rarely pass data (the data-flow prior proposes nothing there): abstain 0.000, first pair 0.069 (P 0.037,
 * R 0.529), whole chain 0.040 (P 0.021, R 0.618); NESTFUL: 0.840 with each (the data-flow prior answers
 * first). So DEFAULTS.chainEdges = 1. The price is the exact-DAG rate of sets with no dependency at all
 * (Seal-Tools training folds 0.942 → 0.048): a weak (0.1) "may depend" edge now names the likeliest pair.
 */
export function mentionChain(
  selected: readonly number[],
  mentions: (v: number) => number | undefined,
  limit = Number.POSITIVE_INFINITY,
  strength = MENTION_CHAIN_STRENGTH,
): MentionDependency[] {
  const named = selected.filter((v) => mentions(v) !== undefined).sort((a, b) => mentions(a)! - mentions(b)!);
  const out: MentionDependency[] = [];
  for (let k = 1; k < named.length && out.length < limit; k++) {
    const from = named[k - 1]!;
    const to = named[k]!;
    out.push({
      from,
      to,
      path: [from, to],
      hops: 1,
      cost: 1 / strength,
      meanWeight: strength,
      strength,
      direct: false,
      mentioned: { from: mentions(from)!, to: mentions(to)! },
    });
  }
  return out;
}

export const MENTION_CHAIN_STRENGTH = 0.1;
