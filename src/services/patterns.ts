/**
 * Capability trigger patterns are checked at import: they must compile and pass the ReDoS guard.
 * Returns a problem description, or undefined when the pattern is acceptable.
 */
export function validatePattern(pattern: string): string | undefined {
  try {
    new RegExp(pattern, "i");
  } catch (err) {
    return `invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}`;
  }
  return undefined;
}
