/**
 * Token savings: how many tokens of tool definitions a model receives per request with every tool, against
 * the tools toolgraph's adapters choose, beside the recall of the tools the task needs.
 *
 *   npx tsx bench/token-savings.ts [--dataset seal-tools|toollinkos|nestful|demo|mcp|all|gateway] [--k 3,5,10,20]
 *       [--embeddings hash:512|use-lite] [--cases 300] [--out token-savings] [--show-misses]
 *
 * For each shared dataset (bench/convert: its catalog, its training executions imported as history, its
 * retrieval cases asked; `all` = the three) and each gateway catalog (`gateway` = both):
 *   - demo: the demo project (`toolgraph demo`'s catalog and its 600 traces, seed 42); every 5th trace is held out
 *     and its intent asked, the tools it called successfully being the needed ones; the other traces are history;
 *   - mcp: the pinned MCP servers (server-everything, -filesystem, -memory) spawned over stdio, their `tools/list`
 *     catalogued as the gateway does (`<server>.<tool>`, real descriptions and input schemas), no history; asked
 *     the hand-written requests of bench/fixtures/mcp-tool-requests.json, each with the tool(s) that answer it.
 * The catalog's tools become function definitions `{ name, description, parameters }`
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
 * Imports the package's public API (the library and its adapters), the dataset converters and the demo's data.
 * Writes bench/results/<out>.json and .md.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { countTokens } from "gpt-tokenizer";
import { estimateTokensInFunctions } from "gpt-tokenizer/functionCalling";
import { anthropicToolSearch } from "../src/adapters/anthropic.ts";
import { demoCatalog, demoTraces } from "../src/demo/index.ts";
import { type EvalCase, openToolgraph } from "../src/index.ts";
import { convertSharedDataset } from "./convert/datasets.ts";
import { listMcpTools } from "./lib/mcp-servers.ts";
import { machine, markdownTable, RESULTS_DIR, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    dataset: { type: "string", default: "all" },
    k: { type: "string", default: "3,5,10,20" },
    embeddings: { type: "string", default: "hash:512" },
    cases: { type: "string", default: "300" },
    out: { type: "string", default: "token-savings" },
    "show-misses": { type: "boolean", default: false },
  },
});
const KS = values.k.split(",").map(Number);
if (KS.some((k) => !Number.isInteger(k) || k < 1 || k > 100))
  throw new Error(`--k: whole numbers from 1 to 100, comma-separated (got ${values.k})`);

interface Tool {
  id: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  [k: string]: unknown;
}
type Retrieval = Extract<EvalCase, { kind: "retrieval" }>;
interface Dataset {
  catalog: { tools: Tool[] };
  traces: object[];
  cases: Retrieval[];
  /** Where the queries come from, printed under the dataset's table (gateway catalogs only). */
  about?: string;
}

/** The pinned MCP servers, named as a gateway configuration would name them: [server, package, arguments]. */
const MCP_SERVERS: [string, string, string[]][] = [
  ["everything", "server-everything", ["stdio"]],
  ["filesystem", "server-filesystem", [process.cwd()]],
  ["memory", "server-memory", []],
];
const MCP_REQUESTS = "bench/fixtures/mcp-tool-requests.json";
/** `toolgraph demo`'s clock, so the demo's traces are the ones the demo command imports. */
const DEMO_NOW = Date.parse("2026-11-01T12:00:00Z");

function sample<T>(all: T[]): T[] {
  const max = Number(values.cases);
  const step = Math.max(1, all.length / max);
  return all.length <= max ? all : Array.from({ length: max }, (_, i) => all[Math.floor(i * step)]!);
}

/** The demo project's 600 traces (seed 42, as `toolgraph demo`): every 5th held out, its intent asked. */
function loadDemo(): Dataset {
  const all = demoTraces(600, 42, DEMO_NOW);
  const held = all.filter((_, i) => i % 5 === 4);
  const cases: Retrieval[] = held.map((t, i) => ({
    kind: "retrieval",
    id: `demo-${i}`,
    query: t.intent ?? "",
    // The tools that answered the intent: every tool the execution called successfully.
    relevant: [...new Set(t.steps.filter((s) => s.success !== false).map((s) => s.tool))],
  }));
  return {
    catalog: demoCatalog() as unknown as { tools: Tool[] },
    traces: all.filter((_, i) => i % 5 !== 4),
    cases: sample(cases),
    about:
      "Queries: the intents of every 5th demo trace (600, seed 42), held out; needed tools: those the trace called successfully; the other 480 traces are history. The demo's 32 intents repeat, so every held-out intent is also in the history: this is recall on known intents, not on new wording.",
  };
}

/** The pinned MCP servers' tools as the gateway catalogs them (`<server>.<tool>`), asked the fixture's requests. */
async function loadMcp(): Promise<Dataset> {
  const tools: Tool[] = [];
  for (const [server, pkg, args] of MCP_SERVERS)
    for (const t of await listMcpTools(pkg, args))
      tools.push({
        id: `${server}.${t.name}`,
        name: t.name,
        description: t.description ?? "",
        inputSchema: t.inputSchema,
        tags: [server],
        server,
      });
  const fixture = JSON.parse(readFileSync(MCP_REQUESTS, "utf8")) as { requests: { query: string; tools: string[] }[] };
  const ids = new Set(tools.map((t) => t.id));
  const cases: Retrieval[] = fixture.requests.map((r, i) => {
    const missing = r.tools.filter((t) => !ids.has(t));
    if (missing.length > 0)
      throw new Error(`${MCP_REQUESTS}: requests[${i}].tools: ${missing.join(", ")} not listed by the servers`);
    return { kind: "retrieval", id: `mcp-${i}`, query: r.query, relevant: r.tools };
  });
  return {
    catalog: { tools },
    traces: [],
    cases: sample(cases),
    about: `Catalog: the tools/list of server-everything, server-filesystem and server-memory over stdio, as the gateway maps them (\`<server>.<tool>\`, servers named everything, filesystem, memory); no history. Queries: a small hand-written set of realistic requests with their expected tool(s), ${MCP_REQUESTS} (not from a dataset).`,
  };
}

async function load(name: string): Promise<Dataset> {
  if (name === "demo") return loadDemo();
  if (name === "mcp") return loadMcp();
  const d = convertSharedDataset(name);
  if (!d)
    throw new Error(
      `--dataset: unknown dataset ${JSON.stringify(name)} (seal-tools, toollinkos, nestful, demo, mcp, all, gateway)`,
    );
  const all = Object.values(d.evaluation as Record<string, EvalCase[]>)
    .flat()
    .filter((c): c is Retrieval => c.kind === "retrieval");
  return {
    catalog: d.catalog as unknown as { tools: Tool[] },
    traces: d.traces as unknown as object[],
    cases: sample(all),
  };
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

async function run(name: string): Promise<{ dataset: string; tools: number; about?: string; rows: Row[] }> {
  const d = await load(name);
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
        if (values["show-misses"] && hits < c.relevant.length)
          console.log(
            `  miss k=${k}: ${JSON.stringify(c.query)} needs ${c.relevant.join(", ")}; got ${chosen.join(", ")}`,
          );
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
    return { dataset: name, tools: d.catalog.tools.length, ...(d.about ? { about: d.about } : {}), rows };
  } finally {
    await tg.close();
  }
}

const names =
  values.dataset === "all"
    ? ["seal-tools", "toollinkos", "nestful"]
    : values.dataset === "gateway"
      ? ["demo", "mcp"]
      : values.dataset.split(",");
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
    ...(r.about ? [r.about, ""] : []),
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
