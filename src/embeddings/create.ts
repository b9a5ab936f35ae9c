/**
 * Builds an EmbeddingProvider from a config string or object (CLI flag, config file, env variable).
 *
 * String forms:
 *   ""  | "use-lite"              USE-lite, offline, 512-d (the default)
 *   "hash" | "hash:<d>"           deterministic feature hashing, d dims (default 256), e.g. "hash:384"
 *   "openai:<baseUrl>#<model>"    OpenAI-compatible endpoint, e.g. "openai:http://127.0.0.1:11434/v1#nomic-embed-text";
 *                                 the model is everything after the last "#" (a base URL never needs a fragment)
 * Object forms (validated with zod; unknown fields are errors):
 *   { kind: "use-lite", batchSize? }
 *   { kind: "hash", dimensions?, wordWeight?, trigramWeight? }
 *   { kind: "openai", baseUrl, model, apiKey?, dimensions?, batchSize?, timeoutMs?, maxRetries?, retryBaseMs?, maxBackoffMs? }
 * An API key never goes in the string form: pass `{ apiKey }` as the second argument (e.g. read from an
 * environment variable by the front door); an `apiKey` in the object form wins over it.
 * A spec that matches none of these throws EmbeddingError("bad-spec") naming it.
 */
import { z } from "zod";
import type { EmbeddingCallStore } from "./call-store.ts";
import { HashingEmbedder } from "./hashing.ts";
import { OpenAiCompatibleProvider } from "./openai-compatible.ts";
import { EmbeddingError, type EmbeddingProvider } from "./provider.ts";
import { UseLiteProvider } from "./use-lite.ts";

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();

const specSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("use-lite"), batchSize: positiveInt.optional() }),
  z.strictObject({
    kind: z.literal("hash"),
    dimensions: positiveInt.optional(),
    wordWeight: z.number().nonnegative().optional(),
    trigramWeight: z.number().nonnegative().optional(),
  }),
  z.strictObject({
    kind: z.literal("openai"),
    baseUrl: z.url({ protocol: /^https?$/ }),
    model: z.string().min(1),
    apiKey: z.string().optional(),
    dimensions: positiveInt.optional(),
    batchSize: positiveInt.optional(),
    timeoutMs: positiveInt.optional(),
    maxRetries: nonNegativeInt.optional(),
    retryBaseMs: nonNegativeInt.optional(),
    maxBackoffMs: nonNegativeInt.optional(),
  }),
]);

/** The object form of an embedding spec. */
export type EmbeddingSpec = z.infer<typeof specSchema>;

/** The default spec when none is given. */
export const DEFAULT_EMBEDDING_SPEC = "use-lite";

/** Parses the string form into the object form; throws EmbeddingError("bad-spec"). */
export function parseEmbeddingSpec(spec: string): EmbeddingSpec {
  const s = spec.trim();
  if (s === "" || s === "use-lite") return { kind: "use-lite" };
  if (s === "hash") return { kind: "hash" };
  const hash = /^hash:(\d+)$/.exec(s);
  if (hash) {
    const dimensions = Number(hash[1]);
    if (dimensions < 1)
      throw new EmbeddingError("bad-spec", `spec ${JSON.stringify(spec)}: hash dimensions must be ≥ 1`);
    return { kind: "hash", dimensions };
  }
  if (s.startsWith("openai:")) {
    const rest = s.slice("openai:".length);
    const cut = rest.lastIndexOf("#");
    if (cut <= 0 || cut === rest.length - 1) {
      throw new EmbeddingError("bad-spec", `spec ${JSON.stringify(spec)}: expected "openai:<baseUrl>#<model>"`);
    }
    return validate({ kind: "openai", baseUrl: rest.slice(0, cut), model: rest.slice(cut + 1) }, spec);
  }
  throw new EmbeddingError(
    "bad-spec",
    `unknown embedding spec ${JSON.stringify(spec)}: expected "use-lite", "hash", "hash:<d>" or "openai:<baseUrl>#<model>"`,
  );
}

function validate(spec: unknown, shown: unknown): EmbeddingSpec {
  const parsed = specSchema.safeParse(spec);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new EmbeddingError("bad-spec", `embedding spec ${JSON.stringify(shown)} is invalid: ${issues}`);
  }
  return parsed.data;
}

export interface CreateEmbeddingProviderOptions {
  /** API key for an "openai" spec given as a string. Default: none. */
  readonly apiKey?: string;
  /** For a "use-lite" spec: earlier processes' answers, call by call (call-store.ts). Default none. */
  readonly store?: EmbeddingCallStore | undefined;
}

/** A provider for a spec (string or object form; default "use-lite"). The USE-lite model loads on first use. */
export function createEmbeddingProvider(
  spec: string | EmbeddingSpec = DEFAULT_EMBEDDING_SPEC,
  options: CreateEmbeddingProviderOptions = {},
): EmbeddingProvider {
  const s = typeof spec === "string" ? parseEmbeddingSpec(spec) : validate(spec, spec);
  switch (s.kind) {
    case "use-lite":
      return new UseLiteProvider({ batchSize: s.batchSize, store: options.store });
    case "hash":
      return new HashingEmbedder({
        dimensions: s.dimensions,
        wordWeight: s.wordWeight,
        trigramWeight: s.trigramWeight,
      });
    case "openai":
      return new OpenAiCompatibleProvider({ ...s, apiKey: s.apiKey ?? options.apiKey });
  }
}
