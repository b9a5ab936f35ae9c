/**
 * Bounds a log line: an upstream can print a line of any length (one stderr line of 80,000 characters was
 * seen) and a catalog sync can name thousands of tools. A line longer than `max` keeps its first `max`
 * characters and ends with a marker saying how many were cut (docs/decisions/gateway-churn.md).
 */

export const BOUNDED_LINE_DEFAULTS = {
  /** Characters kept of one log line. */
  maxChars: 2_000,
} as const;

export function boundLine(line: string, max: number = BOUNDED_LINE_DEFAULTS.maxChars): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}… [${line.length - max} more characters cut]`;
}

/** "a, b, c, … 97 more": at most `max` names of a list, for a log line. */
export function boundList(items: readonly string[], max = 10): string {
  return items.length <= max ? items.join(", ") : `${items.slice(0, max).join(", ")}, … ${items.length - max} more`;
}
