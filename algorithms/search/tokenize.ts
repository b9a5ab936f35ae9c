/**
 * Word tokens for lexical search (BM25) and the searchable text of a tool.
 *
 * tokenize(text):
 *   1. Unicode NFKD, combining marks removed ("café" → "cafe").
 *   2. Every character that is not a letter or digit separates (snake_case, kebab-case, dots, colons,
 *      slashes, spaces). Inside each remaining chunk, identifier boundaries split too: lower→Upper
 *      ("readFile" → "read File"), UPPER→Upper+lower+lower ("HTTPServer" → "HTTP Server", while "URLs"
 *      stays whole), letter↔digit ("utf8" → "utf 8", "v2beta" → "v 2 beta"). A chunk split this way is also
 *      kept whole ("GitHub" → "github", "git", "hub") so prose and identifier spellings meet.
 *   3. Lowercase; drop the small English STOPWORDS list below (negations such as "not" and "no" are kept:
 *      they carry intent).
 *   4. stem() each token with the light suffix rules documented on `stem`.
 *
 * toolText / toolTokens: the searchable text of a tool from {id, name, description, parameters, tags,
 * examples}. `toolText` is the plain text (each field once, identifiers split into words) for embedding;
 * `toolTokens` is the BM25 document, where fields are weighted by repetition (FIELD_WEIGHTS: name 3, tags 2,
 * id 1, description 1, parameter names 1, parameter descriptions 1, examples 1). Repetition raises a
 * field's term frequency, which BM25 saturates (k1), so a name hit counts more than a description hit
 * without swamping it.
 *
 * Source: identifier splitting as in code-search tokenisers (e.g. Lucene's WordDelimiterGraphFilter); the
 * suffix rules are a subset of Porter's step 1 (Porter, "An algorithm for suffix stripping", 1980).
 */

export const STOPWORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "the",
  "and",
  "or",
  "of",
  "to",
  "in",
  "on",
  "for",
  "with",
  "by",
  "from",
  "at",
  "as",
  "into",
  "onto",
  "via",
  "is",
  "are",
  "was",
  "were",
  "be",
  "been",
  "being",
  "it",
  "its",
  "this",
  "that",
  "these",
  "those",
  "i",
  "me",
  "my",
  "we",
  "our",
  "you",
  "your",
  "he",
  "she",
  "they",
  "them",
  "their",
  "please",
  "can",
  "could",
  "would",
  "should",
  "will",
  "shall",
  "may",
  "might",
  "do",
  "does",
  "did",
  "some",
  "any",
  "then",
  "than",
  "so",
  "if",
  "else",
  "about",
  "there",
  "here",
  "also",
  "just",
  "very",
  "want",
  "need",
]);

/** Repetition weight of each tool field in the BM25 document. */
export const FIELD_WEIGHTS = {
  id: 1,
  name: 3,
  description: 1,
  parameterName: 1,
  parameterDescription: 1,
  tags: 2,
  examples: 1,
} as const;

export const DEFAULTS = {
  stem: true,
  keepCompounds: true,
  stopwords: STOPWORDS,
  fieldWeights: FIELD_WEIGHTS,
} as const;

export interface TokenizeOptions {
  /** Apply the light stemmer. Default true. */
  readonly stem?: boolean;
  /** Also emit a case-split chunk whole ("GitHub" → "github", "git", "hub"). Default true. */
  readonly keepCompounds?: boolean;
  /** Tokens to drop (compared after lowercasing, before stemming). Default STOPWORDS. */
  readonly stopwords?: ReadonlySet<string>;
}

export interface ToolTextInput {
  readonly id: string;
  readonly name?: string;
  readonly description?: string;
  readonly parameters?: readonly { readonly name: string; readonly description?: string }[];
  readonly tags?: readonly string[];
  readonly examples?: readonly string[];
}

/** A catalog tool as stored: its JSON Schema input carries the parameters' names and descriptions. */
export interface CatalogToolText {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown> | null;
  readonly tags: readonly string[];
  readonly examples: readonly string[];
}

/**
 * The text fields of a catalog tool: the parameters are the entries of `inputSchema.properties` in their
 * order, each with its `description` when that is a string; the other fields are copied.
 */
export function toolTextInput(t: CatalogToolText): ToolTextInput {
  const props = (t.inputSchema?.properties as Record<string, { description?: unknown }> | undefined) ?? {};
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    parameters: Object.entries(props).map(([name, v]) => ({
      name,
      description: typeof v?.description === "string" ? v.description : undefined,
    })),
    tags: t.tags,
    examples: t.examples,
  };
}

export interface ToolTokensOptions extends TokenizeOptions {
  /** Repetition weight per field (non-negative integers). Default FIELD_WEIGHTS. */
  readonly fieldWeights?: Partial<Record<keyof typeof FIELD_WEIGHTS, number>>;
  /**
   * The tokens of one field's text. Default `tokenize(text, options)`; a caller that keeps token lists between
   * builds passes a function returning the same list for the same text (it must equal tokenize's; the list is
   * only read).
   */
  readonly tokenizeField?: (text: string) => readonly string[];
}

const VOWEL = /[aeiouy]/;

/** True when the string ends with a doubled consonant other than l, s, z ("stopp", "runn"). */
function endsWithUndoubleable(w: string): boolean {
  const n = w.length;
  if (n < 2) return false;
  const c = w[n - 1]!;
  return c === w[n - 2] && /[bcdfghjkmnpqrtvwx]/.test(c);
}

function undouble(w: string): string {
  return endsWithUndoubleable(w) && w.length - 1 >= 3 ? w.slice(0, -1) : w;
}

/**
 * Light suffix stemmer, applied in this order (tokens of ≤ 3 characters and tokens with a digit are kept):
 *   plural   "ies" → "y" (len > 4: queries → query); "sses" → "ss" (classes → class);
 *            "xes" | "ches" | "shes" → drop "es" (indexes → index, matches → match);
 *            final "s" dropped unless the word ends in "ss", "us" or "is" (files → file, status, analysis kept);
 *   -ied     → "y" (len > 4: copied → copy);
 *   -ing     dropped when the stem keeps ≥ 3 letters and a vowel (reading → read), then a doubled final
 *            consonant other than l/s/z is undoubled when ≥ 3 letters remain (running → run, calling → call);
 *   -ed      same rule as -ing (parsed → pars, stopped → stop, added → add);
 *   final e  dropped when ≥ 4 letters remain (create → creat, so created/creates/creating meet it;
 *            parse → pars; file and use are kept).
 * It is not idempotent in general and not a full Porter stemmer; it only has to map a word and its common
 * inflections to one key.
 */
export function stem(token: string): string {
  let w = token;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(?:x|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);

  if (w.endsWith("ied") && w.length > 4) {
    w = w.slice(0, -3) + "y";
  } else if (w.endsWith("ing") && w.length - 3 >= 3 && VOWEL.test(w.slice(0, -3))) {
    w = undouble(w.slice(0, -3));
  } else if (w.endsWith("ed") && w.length - 2 >= 3 && VOWEL.test(w.slice(0, -2))) {
    w = undouble(w.slice(0, -2));
  }
  if (w.endsWith("e") && w.length - 1 >= 4) w = w.slice(0, -1);
  return w;
}

/** A chunk with nothing to split: lowercase ASCII letters only, or digits only (most words of prose). */
const UNSPLIT = /^(?:[a-z]+|[0-9]+)$/;

/**
 * Splits one alphanumeric chunk at case and letter/digit boundaries. A chunk of lowercase ASCII letters or of
 * digits only has no such boundary and is returned as it is, without the four Unicode replacements (which
 * allocated most of a catalog sync's garbage on the event loop: docs/decisions/gateway-first-answer.md).
 */
function splitChunk(chunk: string): string[] {
  if (UNSPLIT.test(chunk)) return [chunk];
  return chunk
    .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll}{2})/gu, "$1 $2")
    .replace(/(\p{L})(\p{N})/gu, "$1 $2")
    .replace(/(\p{N})(\p{L})/gu, "$1 $2")
    .split(" ");
}

/** Splits identifiers and prose into lowercase words (no stopword removal, no stemming, no compounds). */
export function splitWords(text: string): string[] {
  return wordsWithCompounds(text, false);
}

function wordsWithCompounds(text: string, keepCompounds: boolean): string[] {
  const out: string[] = [];
  const chunks = text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .split(/[^\p{L}\p{N}]+/u);
  for (const chunk of chunks) {
    if (chunk.length === 0) continue;
    const parts = splitChunk(chunk);
    if (keepCompounds && parts.length > 1) out.push(chunk.toLowerCase());
    for (const p of parts) out.push(p.toLowerCase());
  }
  return out;
}

/** Lowercase word tokens: split, stopwords dropped, stemmed (see the header). */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const doStem = options.stem ?? DEFAULTS.stem;
  const stop = options.stopwords ?? DEFAULTS.stopwords;
  const out: string[] = [];
  for (const w of wordsWithCompounds(text, options.keepCompounds ?? DEFAULTS.keepCompounds)) {
    if (stop.has(w)) continue;
    out.push(doStem ? stem(w) : w);
  }
  return out;
}

/** The tool's fields as plain strings, identifiers split into words ("read_file" → "read file"). */
export function toolFields(tool: ToolTextInput): {
  id: string;
  name: string;
  description: string;
  parameterNames: string;
  parameterDescriptions: string;
  tags: string;
  examples: string;
} {
  const words = (s: string | undefined) => (s ? splitWords(s).join(" ") : "");
  const params = tool.parameters ?? [];
  return {
    id: words(tool.id),
    name: words(tool.name),
    description: tool.description?.trim() ?? "",
    parameterNames: params.map((p) => words(p.name)).join(" "),
    parameterDescriptions: params
      .map((p) => p.description?.trim() ?? "")
      .filter((s) => s.length > 0)
      .join(". "),
    tags: (tool.tags ?? []).map(words).join(" "),
    examples: (tool.examples ?? []).map((e) => e.trim()).join(". "),
  };
}

/**
 * Plain searchable text for an embedding model: "name: description. Parameters: … Tags: … Examples: …",
 * each field once; the name falls back to the id's words when absent.
 */
export function toolText(tool: ToolTextInput): string {
  const f = toolFields(tool);
  const parts: string[] = [];
  const head = f.name || f.id;
  parts.push(f.description ? `${head}: ${f.description}` : head);
  const params = (tool.parameters ?? [])
    .map((p) =>
      p.description ? `${splitWords(p.name).join(" ")} (${p.description.trim()})` : splitWords(p.name).join(" "),
    )
    .filter((s) => s.length > 0);
  if (params.length > 0) parts.push(`Parameters: ${params.join(", ")}`);
  if (f.tags) parts.push(`Tags: ${f.tags}`);
  if (f.examples) parts.push(`Examples: ${f.examples}`);
  return parts.join(". ").replace(/\.\./g, ".");
}

/** The BM25 document of a tool: tokens of each field repeated by its FIELD_WEIGHTS weight. */
export function toolTokens(tool: ToolTextInput, options: ToolTokensOptions = {}): string[] {
  const weights = { ...DEFAULTS.fieldWeights, ...options.fieldWeights };
  const f = toolFields(tool);
  const out: string[] = [];
  const add = (text: string, times: number) => {
    if (!text || times <= 0) return;
    const toks = options.tokenizeField ? options.tokenizeField(text) : tokenize(text, options);
    for (let r = 0; r < times; r++) for (const t of toks) out.push(t);
  };
  add(f.id, weights.id);
  add(f.name, weights.name);
  add(f.description, weights.description);
  add(f.parameterNames, weights.parameterName);
  add(f.parameterDescriptions, weights.parameterDescription);
  add(f.tags, weights.tags);
  add(f.examples, weights.examples);
  return out;
}
