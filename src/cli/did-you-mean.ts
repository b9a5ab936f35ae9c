/**
 * "Did you mean …?" for a mistyped command or option: the known names at the smallest Levenshtein distance
 * within 2 (1 for names of at most 4 characters), else the ones the typed text is a prefix of.
 */
import { editDistance } from "../../algorithms/search/explicit-mentions.ts";

export function closestNames(typed: string, known: readonly string[], limit = 3): string[] {
  const t = typed.toLowerCase();
  const scored = known
    .map((name) => {
      const max = name.length <= 4 ? 1 : 2;
      const d = editDistance(t, name.toLowerCase(), max);
      return { name, d: d <= max ? d : name.startsWith(t) && t.length >= 2 ? max + 0.5 : Number.POSITIVE_INFINITY };
    })
    .filter((x) => Number.isFinite(x.d))
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  const best = scored[0]?.d;
  return scored
    .filter((x) => x.d === best)
    .slice(0, limit)
    .map((x) => x.name);
}

/** " Did you mean `search`?" / " Did you mean `--limit` or `--list`?", or "" when nothing is close. */
export function didYouMean(typed: string, known: readonly string[]): string {
  const c = closestNames(typed, known);
  if (c.length === 0) return "";
  return ` Did you mean ${c.map((n) => `\`${n}\``).join(" or ")}?`;
}
