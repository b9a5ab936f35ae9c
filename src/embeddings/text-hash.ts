/**
 * Content key for persisted text embeddings: sha256 of the exact text (UTF-8), lowercase hex (64 chars).
 * No normalisation is applied: the key identifies exactly the string that was embedded. Stored vectors are
 * keyed by (textHash(text), provider.model).
 */
import { createHash } from "node:crypto";

/** sha256(UTF-8 bytes of text) as 64 lowercase hex characters. */
export function textHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
