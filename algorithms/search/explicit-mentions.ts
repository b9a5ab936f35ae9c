/**
 * Explicit mentions: tools that a request names directly.
 *
 * A word of the request counts as an identifier when it looks like code — it contains "_", ".", ":" or
 * "-" between letters, or an inner capital (camelCase) — and it names a tool when, lowercased, it equals
 * the tool's id or name, or (for identifiers of at least 8 characters) is within Levenshtein distance 1
 * of one ("close spelling"). Plain words never match, so natural language ("create a pull request") is
 * left to search. Returns each named tool once, in the order of first mention.
 */

export interface MentionTarget {
  readonly index: number;
  readonly id: string;
  readonly name: string;
}

export interface Mention {
  readonly index: number;
  /** The word of the request that named the tool. */
  readonly word: string;
  readonly match: "id" | "name" | "close-spelling";
}

const IDENT = /[A-Za-z0-9][A-Za-z0-9_.:\-/]*[A-Za-z0-9]/g;

function looksLikeCode(w: string): boolean {
  return /[a-z0-9][_.:\-/][a-z0-9]/i.test(w) || /[a-z][A-Z]/.test(w);
}

/** Levenshtein distance, stopping early above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * editDistance(a, b, 1) ≤ 1 without the table (findMentions' close-spelling scan runs it on every key of
 * a similar length): equal lengths differ in at most one position; lengths one apart become equal by
 * deleting one character of the longer. Compares UTF-16 code units, as editDistance does.
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a.length < b.length) [a, b] = [b, a];
  const d = a.length - b.length;
  if (d > 1) return false;
  let i = 0;
  while (i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === b.length) return true;
  // First mismatch at i: substitute (same length) or skip a[i] (a one longer); the rest must match.
  for (let j = i + 1; j < a.length; j++) if (a.charCodeAt(j) !== b.charCodeAt(j - d)) return false;
  return true;
}

export interface MentionIndex {
  readonly exact: ReadonlyMap<string, { index: number; match: "id" | "name" }>;
  readonly byLength: ReadonlyMap<number, readonly { key: string; index: number }[]>;
}

export function buildMentionIndex(targets: readonly MentionTarget[]): MentionIndex {
  const exact = new Map<string, { index: number; match: "id" | "name" }>();
  const byLength = new Map<number, { key: string; index: number }[]>();
  for (const t of targets) {
    for (const [key, match] of [
      [t.id.toLowerCase(), "id"],
      [t.name.toLowerCase(), "name"],
    ] as const) {
      if (!exact.has(key) && (match === "id" || looksLikeCode(t.name))) exact.set(key, { index: t.index, match });
      if (key.length >= 8) {
        const list = byLength.get(key.length) ?? [];
        list.push({ key, index: t.index });
        byLength.set(key.length, list);
      }
    }
  }
  return { exact, byLength };
}

export function findMentions(text: string, index: MentionIndex): Mention[] {
  const out: Mention[] = [];
  const seen = new Set<number>();
  for (const m of text.matchAll(IDENT)) {
    const word = m[0];
    if (!looksLikeCode(word)) continue;
    const key = word.toLowerCase();
    const hit = index.exact.get(key);
    if (hit) {
      if (!seen.has(hit.index)) out.push({ index: hit.index, word, match: hit.match });
      seen.add(hit.index);
      continue;
    }
    if (key.length < 8) continue;
    let found: number | undefined;
    for (const len of [key.length - 1, key.length, key.length + 1]) {
      for (const c of index.byLength.get(len) ?? []) {
        if (withinOneEdit(key, c.key)) {
          found = c.index;
          break;
        }
      }
      if (found !== undefined) break;
    }
    if (found !== undefined && !seen.has(found)) {
      seen.add(found);
      out.push({ index: found, word, match: "close-spelling" });
    }
  }
  return out;
}
