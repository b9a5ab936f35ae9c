/**
 * A glob over an id, as an anchored regular expression.
 *
 * Formula: `*` → any run of characters (dots and newlines included), `?` → exactly one character, every other
 * character literal (regular-expression metacharacters escaped); the pattern is anchored at both ends.
 * Source: the gateway's policy rules and `approve` patterns over catalog ids `<server>.<tool>`
 * (docs/decisions/gateway-trust.md).
 * Invariants: pure; a glob without `*` or `?` matches exactly itself; `*` matches every id.
 */
export function globRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`, "s");
}
