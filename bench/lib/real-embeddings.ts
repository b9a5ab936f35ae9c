/**
 * A real-embedding dataset for the vector index bench: USE-lite vectors (the default offline embedder, 512-d) of the
 * real texts of the three datasets in bench/data, and, to reach larger n, of deterministic paraphrases of them.
 *
 * Real texts (exact duplicates after trimming dropped; ordered by a hash of the text, so that any prefix is a uniform
 * sample of all of them):
 *   - Seal-Tools (Apache-2.0): every tool's description, "<name in words>: <description>", every parameter's and
 *     response field's "<name in words>: <description>", and the queries of dev, test_in_domain, test_out_domain;
 *   - ToolLinkOS (MIT): every tool's description and parameters, and every instance's user query;
 *   - NESTFUL (Apache-2.0): every spec's description and parameters, and every sample's input.
 * Paraphrases (only when more vectors are asked for than there are real texts): round r = 0, 1, … applies template
 * r to every real text in order (an intent frame such as "Can you …", "I need a tool to …", a field prefix, a
 * sentence of a multi-sentence text) until the target is reached. A paraphrase lies near its source text, so these
 * vectors come in small groups of siblings: the real texts alone (≈ the first realTexts().length vectors) are the
 * cleaner test; the paraphrases are the documented way to reach 100k.
 *
 * The vectors are cached outside git (bench/tmp/real-embeddings/, gitignored) in chunks of CHUNK texts, keyed by a
 * hash of the chunk's texts and the model: a run embeds only the chunks it lacks (a killed run resumes), and a
 * fresh checkout rebuilds the same vectors from the same texts (USE-lite on the TF.js WASM backend, no network).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEmbeddingProvider } from "../../src/index.ts";

const DATA = join(import.meta.dirname, "..", "data");
const CACHE = join(import.meta.dirname, "..", "tmp", "real-embeddings");
/** Texts per cached chunk file. */
export const CHUNK = 2048;

const readJson = (path: string): unknown => JSON.parse(readFileSync(join(DATA, path), "utf8"));
const readJsonl = (path: string): Record<string, unknown>[] =>
  readFileSync(join(DATA, path), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** "getWildlifeSpecies" / "evidence_type" → "get wildlife species" / "evidence type". */
export function nameInWords(name: string): string {
  return name
    .replace(/[._-]+/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .trim();
}

type Fields = Record<string, { description?: unknown }> | { name?: unknown; description?: unknown }[] | undefined;

function fieldTexts(fields: Fields): string[] {
  if (!fields) return [];
  const list = Array.isArray(fields)
    ? fields.map((f) => [String(f.name ?? ""), f.description] as const)
    : Object.entries(fields).map(([k, f]) => [k, f?.description] as const);
  return list
    .filter(([, desc]) => typeof desc === "string" && desc.trim() !== "")
    .map(([name, desc]) => `${nameInWords(name)}: ${String(desc).trim()}`);
}

/** The real texts, deduplicated, in a fixed order (see the header). */
export function realTexts(): { texts: string[]; fields: (string | undefined)[] } {
  const texts: string[] = [];
  const fields: (string | undefined)[] = [];
  const seen = new Set<string>();
  const add = (t: unknown, field?: string) => {
    if (typeof t !== "string") return;
    const s = t.trim().replace(/\s+/g, " ");
    if (s === "" || seen.has(s)) return;
    seen.add(s);
    texts.push(s);
    fields.push(field);
  };
  for (const tool of readJsonl("seal-tools/Seal-Tools_Dataset/tool.jsonl")) {
    const field = typeof tool.field === "string" ? tool.field.split("/").at(-1) : undefined;
    add(tool.api_description, field);
    add(`${nameInWords(String(tool.api_name))}: ${String(tool.api_description ?? "")}`, field);
    for (const t of fieldTexts(tool.parameters as Fields)) add(t, field);
    for (const t of fieldTexts(tool.responses as Fields)) add(t, field);
  }
  for (const split of ["dev", "test_in_domain", "test_out_domain"])
    for (const row of readJsonl(`seal-tools/Seal-Tools_Dataset/${split}.jsonl`)) add(row.query);
  for (const file of ["core_tools", "regular_tools"]) {
    for (const tool of readJson(`toollinkos/toollinkos/${file}.json`) as Record<string, unknown>[]) {
      add(tool.description);
      for (const t of fieldTexts(tool.parameters as Fields)) add(t);
    }
  }
  for (const row of readJson("toollinkos/toollinkos/instances.json") as Record<string, unknown>[]) add(row.user_query);
  for (const spec of [
    "executable/executable-spec",
    "non-executable/non-executable-glaive-spec",
    "non-executable/non-executable-sgd-spec",
  ]) {
    for (const tool of readJson(`nestful/data/${spec}.json`) as Record<string, unknown>[]) {
      add(tool.description);
      for (const t of fieldTexts(tool.query_parameters as Fields)) add(t);
      for (const t of fieldTexts(tool.output_parameters as Fields)) add(t);
    }
  }
  for (const data of [
    "executable/executable-data",
    "non-executable/non-executable-glaive-data",
    "non-executable/non-executable-sgd-data",
  ]) {
    for (const row of readJson(`nestful/data/${data}.json`) as Record<string, unknown>[]) add(row.input);
  }
  // A fixed pseudo-random order (by a hash of the text): any prefix is a uniform sample of all the sources.
  const key = texts.map((t) => createHash("sha256").update(t).digest("hex"));
  const order = texts.map((_, i) => i).sort((a, b) => (key[a]! < key[b]! ? -1 : key[a]! > key[b]! ? 1 : a - b));
  return { texts: order.map((i) => texts[i]!), fields: order.map((i) => fields[i]) };
}

const lowerFirst = (s: string) => (s.length > 1 && s[1] === s[1]!.toLowerCase() ? s[0]!.toLowerCase() + s.slice(1) : s);
const noStop = (s: string) => s.replace(/[.?!]+$/, "");

/** Paraphrase templates, applied round by round; each returns undefined when it does not apply to the text. */
const TEMPLATES: ((text: string, field: string | undefined) => string | undefined)[] = [
  (t) => `Can you ${lowerFirst(noStop(t))}?`,
  (t) => `I need a tool to ${lowerFirst(noStop(t))}.`,
  (t, f) => (f ? `${f}: ${t}` : `Task: ${t}`),
  (t) => {
    const sentences = t.split(/(?<=[.?!])\s+/);
    return sentences.length > 1 ? sentences[0] : undefined;
  },
  (t) => `Please help me ${lowerFirst(noStop(t))}, thanks.`,
  (t) => {
    const sentences = t.split(/(?<=[.?!])\s+/);
    return sentences.length > 1 ? sentences.slice(1).join(" ") : undefined;
  },
  (t) => `Looking for something that will ${lowerFirst(noStop(t))}`,
  (t, f) => (f ? `In ${f.toLowerCase()}, ${lowerFirst(t)}` : `Quick question: ${lowerFirst(t)}`),
];

/** The first `target` texts: the real ones, then paraphrases (see the header); fewer if the templates run out. */
export function datasetTexts(target: number): string[] {
  const { texts, fields } = realTexts();
  const out = texts.slice(0, target);
  const seen = new Set(out);
  for (let r = 0; r < TEMPLATES.length && out.length < target; r++) {
    for (let i = 0; i < texts.length && out.length < target; i++) {
      const p = TEMPLATES[r]!(texts[i]!, fields[i]);
      if (p === undefined || seen.has(p)) continue;
      seen.add(p);
      out.push(p);
    }
  }
  return out;
}

/**
 * USE-lite vectors of datasetTexts(target), row-major n × 512, from the cache or embedded now (chunks missing from
 * the cache are embedded and written; `log` reports progress).
 */
export async function realEmbeddings(
  target: number,
  log: (s: string) => void = () => {},
): Promise<{ vectors: Float32Array; texts: string[]; d: number }> {
  // Whole chunks are embedded (their cache keys do not depend on the target); the first `target` are returned.
  const texts = datasetTexts(Math.ceil(target / CHUNK) * CHUNK);
  const provider = createEmbeddingProvider("use-lite");
  const d = 512;
  const vectors = new Float32Array(texts.length * d);
  mkdirSync(CACHE, { recursive: true });
  try {
    for (let start = 0; start < texts.length; start += CHUNK) {
      const chunk = texts.slice(start, start + CHUNK);
      const key = createHash("sha256")
        .update(provider.model)
        .update("\0")
        .update(chunk.join("\n"))
        .digest("hex")
        .slice(0, 24);
      const file = join(CACHE, `${key}.f32`);
      if (existsSync(file)) {
        const buf = readFileSync(file);
        vectors.set(new Float32Array(buf.buffer, buf.byteOffset, chunk.length * d), start * d);
        continue;
      }
      const t0 = performance.now();
      const rows = await provider.embed(chunk);
      const block = new Float32Array(chunk.length * d);
      rows.forEach((v, i) => {
        block.set(v, i * d);
      });
      writeFileSync(`${file}.tmp`, block);
      renameSync(`${file}.tmp`, file);
      vectors.set(block, start * d);
      log(
        `embedded texts ${start}–${start + chunk.length} of ${texts.length} (${((performance.now() - t0) / chunk.length).toFixed(1)} ms a text)`,
      );
    }
  } finally {
    await provider.close?.();
  }
  const n = Math.min(target, texts.length);
  return { vectors: vectors.subarray(0, n * d), texts: texts.slice(0, n), d };
}
