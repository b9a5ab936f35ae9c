/**
 * A tool's purpose statement: the query "asking for it by its purpose" in the learning-curve bench's new-tools
 * phase (docs/decisions/new-tools-queries.md).
 *
 *   purposeQuery(tool) = the words of tool.description, in order, without literal mentions of its name or id
 *
 * Words are maximal runs of letters or digits (punctuation becomes a space). A mention is the name or the id
 * written as it is (case-insensitively, not inside a longer word), e.g. "Use get_weather to …" loses "get_weather"; the words a name is
 * made of stay when the description uses them as words ("Get the weather …"): catalogs whose descriptions are a
 * few words long ("Generate an invoice" for generate_invoice) would otherwise be left with "an". Empty when
 * nothing is left (the caller skips such a tool).
 *
 * Invariants: the output's words are a subsequence of the description's words; a one-word name (length ≥ 2) is
 * not among them; deterministic, pure.
 */

const WORD = /[\p{L}\p{N}]+/gu;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function purposeQuery(tool: { id: string; name?: string; description?: string }): string {
  let text = tool.description ?? "";
  const names = [tool.id, tool.name ?? ""].filter((n) => n.length >= 2).sort((a, b) => b.length - a.length);
  for (const n of names)
    text = text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(n)}(?![\\p{L}\\p{N}])`, "giu"), " ");
  return (text.match(WORD) ?? []).join(" ");
}
