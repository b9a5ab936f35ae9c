/**
 * The memory an indexed step output holds (algorithms/strings/data-flow.ts), for a budget on what an open
 * execution keeps indexed.
 *
 * Formula: bytes = the byte lengths of the text index's typed arrays (chars, suffixes, lcpLeft, lcpRight)
 * + 2 · (code units of every string and echo) + 8 · (count of numbers).
 * Source: the gateway's recorder budget (RECORDER_DEFAULTS.maxIndexBytes, docs/decisions/gateway-churn.md).
 * Invariants: pure; ≥ 0; additive over the parts.
 */
import type { StepOutput } from "./data-flow.ts";

export function outputBytes(o: StepOutput): number {
  const t = o.text;
  let bytes = t.chars.byteLength + t.suffixes.byteLength + t.lcpLeft.byteLength + t.lcpRight.byteLength;
  for (const x of o.strings) bytes += 2 * x.length;
  for (const x of o.echoes) bytes += 2 * x.length;
  return bytes + 8 * o.numbers.size;
}
