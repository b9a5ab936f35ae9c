/**
 * Token savings: how many tokens of tool definitions a model receives per request with every tool, against
 * the tools toolgraph's adapters choose, beside the recall of the tools the task needs.
 *
 *   npx tsx bench/token-savings.ts [--dataset seal-tools|toollinkos|nestful|all] [--k 3,5,10,20]
 *       [--embeddings hash:512|use-lite] [--cases 300] [--out token-savings]
 *
 * For each shared dataset (bench/convert: its catalog, its training executions imported as history, its
 * retrieval cases asked): the catalog's tools become function definitions `{ name, description, parameters }`
 * (parameters = the tool's input JSON Schema). Each retrieval query goes through the toolgraph/anthropic
 * adapter as the model's `tool_search` call would (the OpenAI adapter runs the same search); the tools it
 * references are the ones the model then receives. Counted per request:
 *   - all tools: every definition, as a request without tool search sends them;
 *   - top k: the referenced definitions plus the search tool's own definition (what tool search costs);
 *   - ai-sdk: the `prepareStep` default, the top k, or every tool when the gate abstained.
 * Tokens are gpt-tokenizer 4.0.0's `estimateTokensInFunctions` with `countTokens` (o200k_base): its offline
 * rendering of function definitions as OpenAI models receive them. Other vendors' tokenizers count differently,
 * so the ratios carry over better than the absolute numbers.
 * Recall@k: the share of a case's needed tools among the chosen; "all needed" the share of cases with every one;
 * the ai-sdk column's recall counts an abstained case as complete (every tool offered).
 *
 * Imports only the package's public API (the library and its adapters) and the dataset converters.
 * Writes bench/results/<out>.json and .md.
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { countTokens } from "gpt-tokenizer";
import { estimateTokensInFunctions } from "gpt-tokenizer/functionCalling";
import { anthropicToolSearch } from "../src/adapters/anthropic.ts";
import { type EvalCase, openToolgraph } from "../src/index.ts";
import { convertNestful } from "./convert/nestful.ts";
import { convertSealTools } from "./convert/seal-tools.ts";
import { convertToolLinkOs } from "./convert/toollinkos.ts";
import { machine, markdownTable, RESULTS_DIR, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    dataset: { type: "string", default: "all" },
    k: { type: "string", default: "3,5,10,20" },
    embeddings: { type: "string", default: "hash:512" },
    cases: { type: "string", default: "300" },
    out: { type: "string", default: "token-savings" },
  },
});
const KS = values.k.split(",").map(Number);
if (KS.some((k) => !Number.isInteger(k) || k < 1 || k > 100))
  throw new Error(`--k: whole numbers from 1 to 100, comma-separated (got ${values.k})`);

interface Tool {
  id: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}
type Retrieval = Extract<EvalCase, { kind: "retrieval" }>;

function load(name: string): { catalog: { tools: Tool[] }; traces: object[]; cases: Retrieval[] } {
  const d =
    name === "seal-tools"
      ? convertSealTools()
      : name === "toollinkos"
        ? convertToolLinkOs()
        : name === "nestful"
          ? convertNestful()
          : undefined;
  if (!d) throw new Error(`--dataset: unknown dataset ${JSON.stringify(name)} (seal-tools, toollinkos, nestful, all)`);
  const all = Object.values(d.evaluation as Record<string, EvalCase[]>)
    .flat()
    .filter((c): c is Retrieval => c.kind === "retrieval");
  const max = Number(values.cases);
  const step = Math.max(1, all.length / max);
  const cases = all.length <= max ? all : Array.from({ length: max }, (_, i) => all[Math.floor(i * step)]!);
  return { catalog: d.catalog as unknown as { tools: Tool[] }, traces: d.traces as unknown as object[], cases };
}

/** A tool name the APIs accept (letters, digits, _ and -), unique over the catalog. */
function wireNames(ids: readonly string[]): Map<string, string> {
  const byId = new Map<string, string>();
  const used = new Set<string>();
  for (const id of ids) {
    const base = id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60);
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
    used.add(name);
    byId.set(id, name);
  }
  return byId;
}

/** Tokens of function definitions as OpenAI models receive them (gpt-tokenizer's offline estimate). */
function tokensOf(defs: readonly { name: string; description?: string; parameters?: unknown }[]): number {
  if (defs.length === 0) return 0;
  // The estimator knows the JSON Schema keywords of function parameters; a schema it cannot render counts as JSON.
  try {
    return estimateTokensInFunctions(defs as Parameters<typeof estimateTokensInFunctions>[0], countTokens);
  } catch {
    return countTokens(JSON.stringify(defs));
  }
}

interface Row {
  k: number;
  cases: number;
  tokensAll: number;
  tokensTopK: number;
  savedTopK: number;
  tokensAiSdk: number;
  savedAiSdk: number;
  abstained: number;
  recall: number;
  allNeeded: number;
  /** Recall of the ai-sdk default: every needed tool is there when the gate abstained. */
  recallAiSdk: number;
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

async function run(name: string): Promise<{ dataset: string; tools: number; rows: Row[] }> {
  const d = load(name);
  const tg = await openToolgraph({ home: "memory://", project: name, embeddings: values.embeddings });
  try {
    await tg.importCatalog(d.catalog);
    await tg.importTraces(d.traces);
    await tg.settle();
    const wire = wireNames(d.catalog.tools.map((t) => t.id));
    const idOf = new Map([...wire].map(([id, n]) => [n, id]));
    const defs = new Map(
      d.catalog.tools.map((t) => [
        t.id,
        {
          name: wire.get(t.id)!,
          description: t.description ?? "",
          parameters: t.inputSchema ?? { type: "object", properties: {} },
        },
      ]),
    );
    const tokensAll = tokensOf([...defs.values()]);
    const rows: Row[] = [];
    for (const k of KS) {
      const search = anthropicToolSearch(tg, {
        tools: d.catalog.tools.map((t) => ({
          name: wire.get(t.id)!,
          description: t.description ?? "",
          input_schema: { type: "object" as const },
        })),
        toolId: (n) => idOf.get(n) ?? n,
        k,
      });
      const searchTool = search.tools[0]!;
      const searchTokens = tokensOf([
        { name: searchTool.name, description: searchTool.description ?? "", parameters: searchTool.input_schema },
      ]);
      const topK: number[] = [];
      const aiSdk: number[] = [];
      const recall: number[] = [];
      const complete: number[] = [];
      const recallAi: number[] = [];
      let abstained = 0;
      for (const [i, c] of d.cases.entries()) {
        const [result] = await search.answer({
          type: "tool_use",
          id: `q${i}`,
          name: searchTool.name,
          input: { query: c.query },
        });
        const chosen = (result?.content ?? []).flatMap((b) =>
          b.type === "tool_reference" ? [idOf.get(b.tool_name)!] : [],
        );
        const t = tokensOf(chosen.map((id) => defs.get(id)!));
        const gateAbstained = search.selections.at(-1)?.abstained ?? false;
        if (gateAbstained) abstained++;
        topK.push(t + searchTokens);
        aiSdk.push(gateAbstained ? tokensAll : t);
        const hits = c.relevant.filter((r) => chosen.includes(r)).length;
        recall.push(hits / c.relevant.length);
        recallAi.push(gateAbstained ? 1 : hits / c.relevant.length);
        complete.push(hits === c.relevant.length ? 1 : 0);
      }
      const row: Row = {
        k,
        cases: d.cases.length,
        tokensAll,
        tokensTopK: mean(topK),
        savedTopK: 1 - mean(topK) / tokensAll,
        tokensAiSdk: mean(aiSdk),
        savedAiSdk: 1 - mean(aiSdk) / tokensAll,
        abstained: abstained / d.cases.length,
        recall: mean(recall),
        allNeeded: mean(complete),
        recallAiSdk: mean(recallAi),
      };
      rows.push(row);
      console.log(
        `${name} k=${k}: ${row.tokensTopK.toFixed(0)} of ${tokensAll} tokens (${(100 * row.savedTopK).toFixed(1)} % saved), recall ${row.recall.toFixed(3)}`,
      );
    }
    return { dataset: name, tools: d.catalog.tools.length, rows };
  } finally {
    await tg.close();
  }
}

const names = values.dataset === "all" ? ["seal-tools", "toollinkos", "nestful"] : [values.dataset];
const results = [];
for (const n of names) results.push(await run(n));

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const md = [
  "# Token savings",
  "",
  `${machine()}; load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}; embeddings ${values.embeddings}; tokens: gpt-tokenizer 4.0.0 estimateTokensInFunctions (o200k_base)`,
  "",
  "Tokens of tool definitions per request: every tool, against the top k the adapters load (plus the search tool's own definition), and",
  "against the AI SDK default (every tool when the gate abstains). Recall@k: needed tools among those chosen; all needed:",
  "share of queries with every needed tool chosen.",
  "",
  ...results.flatMap((r) => [
    `## ${r.dataset} (${r.tools} tools, ${r.rows[0]?.cases ?? 0} queries)`,
    "",
    markdownTable(
      [
        "k",
        "all tools",
        "top k + search tool",
        "saved",
        "Recall@k",
        "all needed",
        "gate abstained",
        "ai-sdk (all on abstain)",
        "saved",
        "Recall",
      ],
      r.rows.map((x) => [
        String(x.k),
        x.tokensAll,
        Math.round(x.tokensTopK),
        pct(x.savedTopK),
        x.recall,
        x.allNeeded,
        pct(x.abstained),
        Math.round(x.tokensAiSdk),
        pct(x.savedAiSdk),
        x.recallAiSdk,
      ]),
    ),
    "",
  ]),
].join("\n");
console.log(md);
const command = `npx tsx bench/token-savings.ts --dataset ${values.dataset} --k ${values.k} --embeddings ${values.embeddings} --cases ${values.cases}`;
writeResult(values.out, {
  bench: "token-savings",
  command,
  date: new Date().toISOString(),
  machine: machine(),
  load: loadavg(),
  embeddings: values.embeddings,
  tokenizer: "gpt-tokenizer 4.0.0 estimateTokensInFunctions, o200k_base",
  results,
});
writeFileSync(join(RESULTS_DIR, `${values.out}.md`), `${md}\n`);
