/**
 * Trust on first use for tool definitions: the hash a tool is pinned by, and the verdict of a listed version
 * against its pin.
 *
 * Formula: hash = SHA-256 of the canonical JSON (object keys sorted, recursively) of
 * { d: description ?? "", t: title ?? null, i: inputSchema ?? null, o: outputSchema ?? null, a: annotations ?? null }.
 * Verdict: no pin → `new` (pinned now); same hash → `pinned` (a pending change is dropped: it changed back);
 * another hash → `approved-change` with autoApprove (re-pinned now), else `quarantined` (the version kept as
 * `pending` until approved).
 * Source: the gateway's pins (docs/decisions/gateway-trust.md).
 * Invariants: pure (no clock: `now` is given); the hash ignores key order and the tool's name; a verdict
 * changes the pin (`next` set) only when the pin file must be written.
 */
import { createHash } from "node:crypto";

export interface PinnedTool {
  description?: string | undefined;
  title?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

export interface Pin {
  hash: string;
  firstSeen: string;
  /** The description as first seen (the original, for audit). */
  description: string;
  /** A changed version waiting for approval. */
  pending?: { hash: string; seen: string; description: string } | undefined;
}

export type PinVerdict = { state: "pinned" | "new" | "approved-change" } | { state: "quarantined"; reason: string };

const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v !== null && typeof v === "object"
      ? Object.fromEntries(
          Object.keys(v as object)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : v;

/** The hash a tool is pinned by: its description, title, schemas and annotations as listed (canonical JSON). */
export function toolHash(tool: PinnedTool): string {
  const text = JSON.stringify(
    canonical({
      d: tool.description ?? "",
      t: tool.title ?? null,
      i: tool.inputSchema ?? null,
      o: tool.outputSchema ?? null,
      a: tool.annotations ?? null,
    }),
  );
  return createHash("sha256").update(text).digest("hex");
}

/** One listed version against its pin: the verdict, and the pin to keep when it changes (else `next` undefined). */
export function pinVerdict(
  pin: Pin | undefined,
  listed: { id: string; hash: string; description: string },
  options: { autoApprove: boolean; now: string },
): { verdict: PinVerdict; next?: Pin | undefined } {
  const { id, hash, description } = listed;
  if (!pin) return { verdict: { state: "new" }, next: { hash, firstSeen: options.now, description } };
  if (pin.hash === hash) {
    const verdict: PinVerdict = { state: "pinned" };
    // Changed back to the approved version: the pending one is dropped.
    return pin.pending ? { verdict, next: { ...pin, pending: undefined } } : { verdict };
  }
  if (options.autoApprove)
    return { verdict: { state: "approved-change" }, next: { hash, firstSeen: options.now, description } };
  const verdict: PinVerdict = {
    state: "quarantined",
    reason: `quarantined: its description, schema or annotations changed since it was first seen (${pin.firstSeen}); approve the new version with \`toolgraph gateway approve ${id}\``,
  };
  if (pin.pending?.hash === hash) return { verdict };
  return { verdict, next: { ...pin, pending: { hash, seen: options.now, description } } };
}
