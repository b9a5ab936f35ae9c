/**
 * Renders bench/README.md (one summary table per question), bench/pages/<topic>.md (every table of that
 * question) and bench/pages/decisions.md from bench/results/*.json (and the .md tables the benches print), and
 * the results summary block of the top-level README.md, so that no result number is typed by hand.
 *
 *   npm run bench:readme          (npx tsx bench/render-readme.ts [--check])
 *
 * Every results file gets a section: its command (the JSON's own `command`, else the bench's usual command
 * below), its machine, date and load, then the bench's own .md table when there is one, else a generic
 * rendering of the JSON (top-level values, and a table for each array of records). A file this script does
 * not know is rendered generically, so a new bench shows up without a change here. "Decisions" comes from
 * bench/decisions.md, whose `{{file.json#path.to.value}}` placeholders are filled from the results.
 * `--check` exits 1 when a rendered file differs from the committed one (for CI).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const BENCH = import.meta.dirname;
const RESULTS = join(BENCH, "results");
const ROOT = join(BENCH, "..");

/** Titles and usual commands of the known benches, in the order bench/README.md lists them. */
const KNOWN: { match: RegExp; title: string; command?: string }[] = [
  { match: /^accuracy-/, title: "Accuracy", command: "npx tsx bench/accuracy.ts --dataset all" },
  {
    match: /^latency$/,
    title: "Latency at scale",
    command: "node --expose-gc --import tsx bench/latency.ts --tools 1000,10000 --op-seconds 20",
  },
  { match: /^memory$/, title: "Intent memory at scale", command: "node --expose-gc --import tsx bench/memory.ts" },
  { match: /^routing$/, title: "Two-hop namespace routing", command: "npx tsx bench/routing.ts" },
  {
    match: /^mcp-conformance$/,
    title: "MCP conformance (the official suite): serve /mcp",
    command: ".ci/conformance --record",
  },
  {
    match: /^mcp-conformance-gateway$/,
    title: "MCP conformance (the official suite): gateway --http",
    command: ".ci/conformance --record",
  },
  { match: /^ingest$/, title: "Ingestion", command: "npx tsx bench/ingest.ts" },
  { match: /^refit-growth$/, title: "Fit verdicts as the history grows", command: "npx tsx bench/refit-growth.ts" },
  { match: /^ingestion$/, title: "Ingestion to the first answer", command: "npx tsx bench/ingestion.ts" },
  { match: /^load$/, title: "HTTP load", command: "npx tsx bench/load.ts" },
  { match: /^cli-startup$/, title: "CLI start-up" },
  { match: /^everyday-budget$/, title: "Everyday budgets: CLI search with and without a server, library open" },
  { match: /^embedding-throughput$/, title: "Catalog embedding throughput" },
  { match: /^suite-under-load$/, title: "The test suite on a busy machine" },
  { match: /^gateway-first-answer$/, title: "Gateway: time to the first answer on a fresh home" },
  {
    match: /^embedded-loop-delay-/,
    title: "Event loop during HTTP catalog imports (embedded database on a worker or the main thread)",
    command: "TOOLGRAPH_PGLITE_THREAD=worker|main npx tsx bench/embedded-loop-delay.ts",
  },
  {
    match: /^package$/,
    title: "Package size",
    command: "CONSUMER_REPORT=bench/results/package.json test/package/consumer-check.sh",
  },
  {
    match: /^guard-breadth$/,
    title: "The history guard's strength against the breadth of the history (training data only)",
    command: "npx tsx bench/guard-breadth.ts",
  },
  {
    match: /^token-savings$/,
    title: "Token savings of the adapters",
    command: "npx tsx bench/token-savings.ts --dataset all --embeddings hash:512 --cases 200",
  },
];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function readJson(file: string): Json {
  return JSON.parse(readFileSync(join(RESULTS, file), "utf8")) as Json;
}

function fmt(v: Json | undefined): string {
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return String(v);
    if (Number.isInteger(v)) return Math.abs(v) >= 10_000 ? v.toLocaleString("en-US") : String(v);
    return Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3);
  }
  if (typeof v === "string") return v.replace(/\|/g, "\\|").replace(/\n/g, " ");
  if (Array.isArray(v))
    return v.every((x) => typeof x !== "object" || x === null)
      ? v.length > 8
        ? `${v.slice(0, 8).map(fmt).join(", ")}, … (${v.length})`
        : v.map(fmt).join(", ")
      : `(${v.length} records)`;
  return Object.entries(v)
    .filter(([, x]) => typeof x !== "object" || x === null)
    .map(([k, x]) => `${k} ${fmt(x)}`)
    .join(", ");
}

const isRecord = (v: Json | undefined): v is { [k: string]: Json } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Flattens one level of nesting: { a: { b: 1 } } → { "a.b": 1 }; arrays of numbers stay as cells. */
function flatten(r: { [k: string]: Json }): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(r)) {
    if (isRecord(v)) for (const [k2, v2] of Object.entries(v)) out[`${k}.${k2}`] = isRecord(v2) ? fmt(v2) : v2;
    else out[k] = v;
  }
  return out;
}

function table(rows: Record<string, Json>[], maxRows = 30): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((c) =>
    rows.some((r) => !Array.isArray(r[c]) || (r[c] as Json[]).length <= 8),
  );
  const head = `| ${cols.join(" | ")} |\n| ${cols.map(() => "---").join(" | ")} |`;
  const body = rows.slice(0, maxRows).map((r) => `| ${cols.map((c) => fmt(r[c])).join(" | ")} |`);
  const more = rows.length > maxRows ? `\n\n(${rows.length - maxRows} more rows in the JSON)` : "";
  return `${head}\n${body.join("\n")}${more}`;
}

const META = new Set([
  "bench",
  "command",
  "cmd",
  "commands",
  "machine",
  "date",
  "at",
  "startedAt",
  "loadAverage",
  "loadavg",
  "load",
  "uptimeS",
]);

/** A JSON results file with no table of its own: its values, then one table per array of records. */
export function renderGeneric(j: Json): string {
  if (!isRecord(j)) return "```json\n" + JSON.stringify(j, null, 2).slice(0, 2000) + "\n```";
  const parts: string[] = [];
  const scalars = Object.entries(j).filter(
    ([k, v]) => !META.has(k) && !(Array.isArray(v) && v.some((x) => isRecord(x))),
  );
  if (scalars.length > 0) parts.push(scalars.map(([k, v]) => `- ${k}: ${fmt(v)}`).join("\n"));
  for (const [k, v] of Object.entries(j)) {
    if (META.has(k) || !Array.isArray(v) || !v.some((x) => isRecord(x))) continue;
    parts.push(`${k}:\n\n${table(v.filter(isRecord).map(flatten))}`);
  }
  return parts.join("\n\n");
}

function meta(stem: string, j: Json, known: (typeof KNOWN)[number] | undefined): string {
  const r = isRecord(j) ? j : {};
  const command =
    typeof r.command === "string"
      ? r.command
      : Array.isArray(r.commands)
        ? r.commands.map(String).join(" ; ")
        : known?.command;
  const date = r.date ?? r.at ?? r.startedAt;
  const load = r.loadAverage ?? r.loadavg ?? r.load;
  const lines = [
    `- command: ${command ? `\`${command}\`` : "(not recorded)"}`,
    `- machine: ${typeof r.machine === "string" ? r.machine : r.machine ? fmt(r.machine) : "(not recorded)"}`,
    ...(date ? [`- date: ${fmt(date)}`] : []),
    ...(load
      ? [
          `- load average: ${
            isRecord(load)
              ? Object.entries(load)
                  .map(([k, v]) => `${k} ${fmt(v)}`)
                  .join("; ")
              : fmt(load)
          }`,
        ]
      : []),
    `- raw: [results/${stem}.json](results/${stem}.json)`,
  ];
  return lines.join("\n");
}

function lookup(path: string): Json | undefined {
  const [file, inner] = path.split("#");
  if (!file || !existsSync(join(RESULTS, file))) return undefined;
  let v: Json | undefined = readJson(file);
  for (const key of (inner ?? "").split(".").filter(Boolean)) {
    if (Array.isArray(v)) v = v[Number(key)];
    else if (isRecord(v)) v = v[key];
    else return undefined;
  }
  return v;
}

/** Fills `{{file.json#a.b.0.c}}` placeholders; a missing value renders as "(missing: …)" so it is seen. */
export function fillPlaceholders(text: string): string {
  return text.replace(/\{\{([^}#]+#[^}]*)\}\}/g, (_, p: string) => {
    const v = lookup(p.trim());
    return v === undefined ? `(missing: ${p})` : fmt(v);
  });
}

/** The questions bench/README.md answers, each with its page (bench/pages/<id>.md) and the results it holds. */
export const TOPICS: { id: string; question: string; match: RegExp }[] = [
  { id: "accuracy", question: "How accurate are the answers, beside the baselines?", match: /^accuracy-/ },
  {
    id: "learning",
    question: "Does learning from traffic ever make answers worse?",
    match: /^(learning-curve|search-weight-fitting|guard-breadth|refit-growth)/,
  },
  {
    id: "latency",
    question: "How fast is each job at scale, and what does the wrapper cost?",
    match: /^(latency|job-overhead|recommendation-log|cli-startup|everyday-budget|resource-signals)/,
  },
  {
    id: "vectors",
    question: "How does the vector channel compare with HNSW, and what does memory cost?",
    match: /^(vector-index|memory$|routing)/,
  },
  { id: "ingestion", question: "How fast does a catalog and its history come in?", match: /^(ingest|embedding)/ },
  {
    id: "reliability",
    question: "What survives database faults, load and hostile input?",
    match:
      /^(fault-injection|pattern-worst-case|data-flow|suite-under-load|load$|suspicious|log-retention|embedded-loop)/,
  },
  {
    id: "gateway",
    question: "What does the MCP gateway add to a call, and how soon does it answer?",
    match: /^gateway/,
  },
  { id: "protocol", question: "Do the MCP endpoints pass the official conformance suite?", match: /^mcp-conformance/ },
  { id: "package", question: "What does a user install?", match: /^package/ },
  {
    id: "token-savings",
    question: "How many tool-definition tokens do the framework adapters save, at what recall?",
    match: /^token-savings/,
  },
];
const OTHER = { id: "other", question: "Other results", match: /./ };

function topicOf(stem: string): (typeof TOPICS)[number] {
  return TOPICS.find((t) => t.match.test(stem)) ?? OTHER;
}

function stemsOf(): string[] {
  const stems = readdirSync(RESULTS)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -5));
  const order = (s: string) => {
    const i = KNOWN.findIndex((k) => k.match.test(s));
    return i < 0 ? KNOWN.length : i;
  };
  return stems.sort((a, b) => order(a) - order(b) || a.localeCompare(b));
}

/** One results file's full section: its command, machine and load, then its table(s) and charts. */
function section(stem: string, svgs: string[], link: (f: string) => string): string {
  const known = KNOWN.find((k) => k.match.test(stem));
  const j = readJson(`${stem}.json`);
  const out = [
    `## ${known ? `${known.title}${known.title === "Accuracy" ? `: ${stem.replace(/^accuracy-/, "")}` : ""}` : stem}`,
    "",
    meta(stem, j, known).replace(`](results/${stem}.json)`, `](${link(`${stem}.json`)})`),
    "",
  ];
  const md = join(RESULTS, `${stem}.md`);
  // A bench's own .md: its title line dropped, its headings nested under this section's.
  const own = () =>
    readFileSync(md, "utf8")
      .replace(/^# .*\n/, "")
      .replace(/^(#{1,4}) /gm, "$1## ")
      .trim();
  out.push(existsSync(md) ? own() : renderGeneric(j), "");
  for (const svg of svgs.filter(
    (s) =>
      s.startsWith(`${stem}.`) ||
      s.startsWith(`${stem}-`) ||
      (stem.startsWith("accuracy-") && s.startsWith(`accuracy-gating-${stem.slice(9)}`)),
  )) {
    out.push(`![${svg}](${link(svg)})`, "");
  }
  return out.join("\n");
}

/** The generated per-topic pages: bench/pages/<id>.md → text (and decisions.md). */
export function renderBenchPages(): Map<string, string> {
  const stems = stemsOf();
  const svgs = readdirSync(RESULTS).filter((f) => f.endsWith(".svg"));
  const pages = new Map<string, string>();
  const head = (title: string) =>
    [
      `# ${title}`,
      "",
      "Generated by `npm run bench:readme` from `bench/results/`: do not edit by hand. The machine is shared with other",
      "work: compare numbers within one run (each section names its command, machine and load), not across runs.",
      "",
    ].join("\n");
  for (const t of [...TOPICS, OTHER]) {
    const mine = stems.filter((s) => topicOf(s) === t);
    if (mine.length === 0) continue;
    const body = mine.map((s) => section(s, svgs, (f) => `../results/${f}`)).join("\n");
    pages.set(`${t.id}.md`, `${`${head(t.question)}\n${body}`.replace(/\n{3,}/g, "\n\n").trim()}\n`);
  }
  const decisions = join(BENCH, "decisions.md");
  if (existsSync(decisions))
    pages.set(
      "decisions.md",
      `${head("Decisions behind the defaults, with their numbers")}\n${fillPlaceholders(readFileSync(decisions, "utf8"))
        .replace(/^## Decisions\n/, "")
        .trim()}\n`,
    );
  return pages;
}

type Table = { title: string; headers: string[]; rows: Json[][] };

/** Rows of the accuracy tables that are baselines (not toolgraph, its ablations or its own channels). */
const BASELINE =
  /^(most-popular|bm25|embedding$|first-order Markov|listed-order chain|precedence-sorted chain|no edges|memory only|capability of the nearest)/;

/** Accuracy at a glance: per dataset and split, toolgraph's row of each job against the best baseline row. */
function accuracySummary(stems: string[]): string[] {
  const jobs: { table: RegExp; metric: string; ours: RegExp }[] = [
    { table: /^Retrieval — .*-traces-uselite \/ /, metric: "mAP@10", ours: /^toolgraph \(fitted/ },
    { table: /^Next step — .*-traces-uselite \/ /, metric: "acc@1 (P@1)", ours: /^toolgraph \(suggestNext job\)/ },
    {
      table: /^DAG edges, gold tool set given — .*-traces-uselite \/ /,
      metric: "edge F1",
      ours: /^toolgraph \(dependency graph\) \[all\]$/,
    },
    { table: /^Capability match — .*-traces-uselite \/ /, metric: "accuracy@1 (P@1)", ours: /^toolgraph match/ },
  ];
  const rows: string[] = [];
  for (const stem of stems.filter((s) => /^accuracy-[a-z-]+$/.test(s) && !/stress|-gating$/.test(s))) {
    const j = readJson(`${stem}.json`);
    const tables = (isRecord(j) && Array.isArray(j.tables) ? j.tables : []) as unknown as Table[];
    for (const job of jobs) {
      for (const t of tables.filter((x) => job.table.test(x.title))) {
        const col = t.headers.indexOf(job.metric);
        const ours = t.rows.find((r) => job.ours.test(String(r[0])));
        const base = t.rows
          .filter((r) => BASELINE.test(String(r[0])) && typeof r[col] === "number")
          .sort((a, b) => (b[col] as number) - (a[col] as number))[0];
        if (col < 0 || !ours) continue;
        const split = t.title.split(" / ")[1]?.replace(/ \(.*$/, "") ?? "";
        const what = t.title.split(" — ")[0]!.replace(/, gold tool set given/, "");
        rows.push(
          `| ${stem.replace(/^accuracy-/, "")} ${split} | ${what} | ${job.metric} | ${fmt(ours[col])} | ${base ? `${fmt(base[col])} (${fmt(base[0])})` : "–"} |`,
        );
      }
    }
  }
  if (rows.length === 0) return [];
  return ["| dataset / split | job | metric | toolgraph | best baseline |", "| --- | --- | --- | --- | --- |", ...rows];
}

/** Any other topic at a glance: its results files, when and under what load they ran. */
function filesSummary(stems: string[], page: string): string[] {
  const rows = stems.map((stem) => {
    const j = readJson(`${stem}.json`);
    const r = isRecord(j) ? j : {};
    const date = r.date ?? r.at ?? r.startedAt;
    const load = r.loadAverage ?? r.loadavg ?? r.load;
    const first = isRecord(load) ? (Object.values(load)[0] as Json) : load;
    const load1 = Array.isArray(first) ? first[0] : first;
    const known = KNOWN.find((k) => k.match.test(stem));
    const anchor = (
      known ? `${known.title}${known.title === "Accuracy" ? `: ${stem.replace(/^accuracy-/, "")}` : ""}` : stem
    )
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, "")
      .replace(/ /g, "-");
    return `| [${stem}](pages/${page}#${anchor}) | ${date ? fmt(date).slice(0, 10) : "–"} | ${typeof load1 === "number" ? fmt(load1) : "–"} |`;
  });
  return ["| result | date | 1-min load at start |", "| --- | --- | --- |", ...rows];
}

/** Token savings at a glance: per run and dataset, k = 5 and 10 against every tool, beside recall (all k on the page). */
function tokenSavingsSummary(stems: string[]): string[] {
  const pct = (v: Json | undefined) => (typeof v === "number" ? `${(100 * v).toFixed(1)} %` : "–");
  const commands: string[] = [];
  const rows: string[] = [];
  for (const stem of stems) {
    const j = readJson(`${stem}.json`);
    if (!isRecord(j) || !Array.isArray(j.results)) continue;
    commands.push(`\`${fmt(j.command ?? "")}\``);
    for (const d of j.results.filter(isRecord)) {
      const all = (Array.isArray(d.rows) ? d.rows : []).filter(isRecord);
      const at = (k: number) => all.find((x) => x.k === k);
      const five = at(5);
      const ten = at(10);
      if (!five && !ten) continue;
      const tokens = (r: Record<string, Json> | undefined) =>
        r && typeof r.tokensTopK === "number" ? String(Math.round(r.tokensTopK)) : "–";
      rows.push(
        `| ${fmt(d.dataset)} (${fmt(d.tools)}) | ${fmt(j.embeddings)} | ${fmt((five ?? ten)?.tokensAll)} | ${tokens(five)} | ${pct(five?.savedTopK)} | ${fmt(five?.recall ?? "–")} | ${tokens(ten)} | ${pct(ten?.savedTopK)} | ${fmt(ten?.recall ?? "–")} | ${pct(five?.savedAiSdk)} | ${fmt(five?.recallAiSdk ?? "–")} |`,
      );
    }
  }
  if (rows.length === 0) return [];
  return [
    `Tokens of the tool definitions per request (gpt-tokenizer, o200k_base), by ${commands.join(" and ")}:`,
    "",
    "| dataset (tools) | embeddings | all tools | top 5 + search tool | saved | Recall@5 | top 10 + search tool | saved | Recall@10 | ai-sdk default (k = 5) saved | its recall |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ];
}

export function renderBenchReadme(): string {
  const stems = stemsOf();
  const out = [
    "# Benchmark results",
    "",
    "Generated by `npm run bench:readme` (bench/render-readme.ts) from `bench/results/*.json`: do not edit by hand.",
    "One question per section, its summary here and every table on its page (`bench/pages/`). The machine is",
    "shared with other work: compare numbers within one run (the benches alternate the variants they compare).",
    "",
    "Why each default is what it is, with the numbers that decided it: [pages/decisions.md](pages/decisions.md).",
  ];
  if (existsSync(join(RESULTS, "charts.md")))
    out.push("Charts (p50 and p99 per question, `npx tsx bench/charts.ts`): [results/charts.md](results/charts.md).");
  out.push("");
  for (const t of [...TOPICS, OTHER]) {
    const mine = stems.filter((s) => topicOf(s) === t);
    if (mine.length === 0) continue;
    out.push(`## ${t.question}`, "", `Every table: [pages/${t.id}.md](pages/${t.id}.md).`, "");
    const summary =
      t.id === "accuracy" ? accuracySummary(mine) : t.id === "token-savings" ? tokenSavingsSummary(mine) : [];
    out.push(...(summary.length > 0 ? summary : filesSummary(mine, `${t.id}.md`)), "");
  }
  return `${out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()}\n`;
}

/**
 * One line per known result for the top-level README (between the results markers). Figures that every
 * commit moves (the test count, the package size, the CLI's start-up) are not copied into the README, where
 * they would go stale between two runs of their bench: the README points to bench/README.md, which shows
 * each with the date and commit it was measured on (docs/decisions/fresh-machine.md).
 */
export function renderSummary(): string {
  const lines: string[] = [];
  const get = (p: string) => lookup(p);
  const emb = get("embedding-throughput.json#summary");
  if (Array.isArray(emb) && isRecord(emb[0]) && isRecord(emb[1]))
    lines.push(
      `- Catalog embedding (USE-lite, ${fmt(get("embedding-throughput.json#tools"))} Seal-Tools tools): model ${fmt(emb[0].medianToolsPerSecond)} tools/s, import end to end ${fmt(emb[1].medianToolsPerSecond)} tools/s.`,
    );
  const results = readdirSync(RESULTS).filter((f) => f.endsWith(".json")).length;
  lines.push(
    `- Accuracy, latency, memory, routing, ingestion, package size, CLI start-up, the test suite and every other bench on a busy 2-core machine (${results} dated result files, generated by \`npm run bench:readme\`): [bench/README.md](bench/README.md).`,
  );
  return lines.join("\n");
}

function replaceBlock(text: string, start: string, end: string, body: string): string {
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) return text;
  return `${text.slice(0, a + start.length)}\n${body}\n${text.slice(b)}`;
}

if (process.argv[1]?.endsWith("render-readme.ts")) {
  const check = process.argv.includes("--check");
  const benchReadme = renderBenchReadme();
  const readmePath = join(ROOT, "README.md");
  const readme = readFileSync(readmePath, "utf8");
  const newReadme = replaceBlock(readme, "<!-- results:start -->", "<!-- results:end -->", renderSummary());
  const targets: [string, string][] = [
    [join(BENCH, "README.md"), benchReadme],
    [readmePath, newReadme],
    ...[...renderBenchPages()].map(([name, text]): [string, string] => [join(BENCH, "pages", name), text]),
  ];
  let stale = false;
  for (const [path, text] of targets) {
    const old = existsSync(path) ? readFileSync(path, "utf8") : "";
    if (old === text) continue;
    stale = true;
    if (!check) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
    console.log(`${check ? "stale" : "wrote"} ${path}`);
  }
  if (check && stale) process.exit(1);
}
