/**
 * Time to the first answer of a gateway on a fresh home in front of a large upstream, and the event loop while
 * it embeds and while the upstream churns.
 *
 * The upstream is test/gateway/fixtures/hostile-server.mjs over stdio listing `--tools` tools (default 3,000,
 * plus its 5 control tools). Each arm opens a fresh embedded home (a new temporary directory), a gateway, and
 * an SDK Client over an in-memory transport, as an agent connects:
 * - answer at once (the gateway CLI's way: start without waiting for the embeddings): time from the start to
 *   `initialize` answered, the first `search_tools` (ranked lexically: `degraded: "embedding"`) and whether it
 *   found the tool it was asked for, then time until a search answers with every channel;
 * - wait for the embeddings (how the gateway started before): the same, `start()` waiting for the index.
 * Times run from the gateway's start; opening the fresh home (creating the embedded database) is timed apart.
 * From the start until the full answer, perf_hooks.monitorEventLoopDelay (10 ms resolution) records the event
 * loop's delay. Then a churn storm: the upstream sends 20 tools/list_changed 50 ms
 * apart and renames every tool (a new generation to sync and embed); the loop delay is recorded from the storm
 * until the renamed tools are searchable and their index is built, with a search about every 500 ms (its latency
 * and whether it was degraded).
 *
 * The embedded database runs in the process (PGlite, on its own worker thread; TOOLGRAPH_PGLITE_THREAD=main puts it
 * on the event loop's thread to compare); with `--database URL` the arms use a PostgreSQL server instead, each with
 * a new project, which shows what is the embedded database's.
 *
 *   npx tsx bench/gateway-first-answer.ts [--tools 3000] [--embeddings use-lite] [--database postgres://…]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Gateway, parseGatewayConfig } from "../src/gateway/index.ts";
import { openToolgraph } from "../src/index.ts";
import { codeVersion, machine, markdownTable, percentiles, RESULTS_DIR, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    tools: { type: "string", default: "3000" },
    embeddings: { type: "string", default: "use-lite" },
    database: { type: "string" },
  },
});
/** A PostgreSQL server instead of the embedded database (each arm then uses a new project: a fresh catalog). */
const DATABASE = values.database;
const STEM = DATABASE ? "gateway-first-answer-postgres" : "gateway-first-answer";
const TOOLS = Number(values.tools);
const EMBEDDINGS = values.embeddings!;
const fixture = join(import.meta.dirname, "..", "test", "gateway", "fixtures", "hostile-server.mjs");
const INTENT = "shout one stderr line of many characters";
const EXPECTED = "hostile.shout";

type Loop = { p50: number; p99: number; max: number };
const ms = (ns: number) => ns / 1e6;

function loopMonitor() {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return (): Loop => {
    h.disable();
    return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
  };
}

async function search(client: Client) {
  const t0 = performance.now();
  const r = (await client.callTool({ name: "search_tools", arguments: { intent: INTENT, limit: 5 } })) as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent?: any;
  };
  const took = performance.now() - t0;
  if (r.isError) return { ms: took, error: r.content[0]?.text ?? "error", degraded: undefined, top: undefined };
  return {
    ms: took,
    degraded: r.structuredContent.degraded as string | undefined,
    top: r.structuredContent.results[0]?.tool as string | undefined,
    error: undefined,
  };
}

async function arm(wait: boolean, churn: boolean) {
  const home = mkdtempSync(join(tmpdir(), "tg-first-answer-"));
  // Creating the embedded database (a fresh home) is the library's, not the gateway's: timed apart.
  const tOpen = performance.now();
  const stopOpenLoop = loopMonitor();
  const project = `first-${Date.now().toString(36)}-${wait ? "wait" : "now"}`;
  const tg = await openToolgraph(
    DATABASE ? { database: DATABASE, project, embeddings: EMBEDDINGS } : { home, project, embeddings: EMBEDDINGS },
  );
  const openHome = { ms: performance.now() - tOpen, loopDelayMs: stopOpenLoop() };
  const t0 = performance.now();
  const stopLoop = loopMonitor();
  const config = parseGatewayConfig({
    mcpServers: { hostile: { command: process.execPath, args: [fixture], env: { HOSTILE_TOOLS: String(TOOLS) } } },
  });
  const gateway = new Gateway(tg, { config, log: () => {} });
  try {
    await gateway.start({ waitForEmbeddings: wait });
    const session = gateway.createSession();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    const client = new Client({ name: "first-answer", version: "1" });
    await client.connect(b);
    const initializeMs = performance.now() - t0;
    const first = await search(client);
    const firstAnswerMs = performance.now() - t0;
    let full = first;
    while (full.degraded !== undefined || full.error !== undefined) {
      await new Promise((r) => setTimeout(r, 500));
      full = await search(client);
    }
    const fullAnswerMs = performance.now() - t0;
    const loop = stopLoop();
    const out = {
      arm: wait ? "wait for the embeddings" : "answer at once",
      openHome,
      initializeMs,
      firstAnswerMs,
      firstSearchMs: first.ms,
      firstDegraded: first.degraded ?? null,
      firstTop: first.top ?? first.error ?? null,
      firstFound: first.top === EXPECTED,
      fullAnswerMs,
      loopDelayMs: loop,
    };
    if (!churn) return { ...out, churn: undefined };
    // The storm: 20 notifications 50 ms apart, then every tool renamed (a new catalog to sync and embed).
    const stopChurnLoop = loopMonitor();
    const c0 = performance.now();
    await client.callTool({
      name: "call_tool",
      arguments: { name: "hostile.storm", arguments: { count: 20, everyMs: 50 } },
    });
    await client.callTool({ name: "call_tool", arguments: { name: "hostile.rename", arguments: {} } });
    const searches: { ms: number; degraded: boolean }[] = [];
    const renamed = `hostile.g1_tool_${Math.min(7, TOOLS - 1)}`;
    // Until the renamed tools are in the catalog (the re-list is debounced), then until their index is built.
    let synced = false;
    while (!synced) {
      const s = await search(client);
      searches.push({ ms: s.ms, degraded: s.degraded !== undefined });
      const found = (await client.callTool({
        name: "search_tools",
        arguments: { intent: `generation 1 tool number ${Math.min(7, TOOLS - 1)}`, limit: 10 },
      })) as { structuredContent?: any };
      synced = (found.structuredContent?.results ?? []).some((r: { tool: string }) => r.tool === renamed);
      if (!synced) await new Promise((r) => setTimeout(r, 500));
    }
    let settled = false;
    const settle = gateway.flush().then(() => {
      settled = true;
    });
    while (!settled) {
      const s = await search(client);
      searches.push({ ms: s.ms, degraded: s.degraded !== undefined });
      await Promise.race([settle, new Promise((r) => setTimeout(r, 500))]);
    }
    const after = await search(client);
    const churnLoop = stopChurnLoop();
    return {
      ...out,
      churn: {
        settledMs: performance.now() - c0,
        loopDelayMs: churnLoop,
        searchesDuring: searches.length,
        degradedDuring: searches.filter((s) => s.degraded).length,
        searchMs: percentiles(searches.map((s) => s.ms)),
        afterDegraded: after.degraded ?? null,
      },
    };
  } finally {
    await gateway.close();
    await tg.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const startedAt = new Date().toISOString();
  const atOnce = await arm(false, true);
  const waited = await arm(true, false);
  const loadAfter = loadavg();
  const result = {
    bench: STEM,
    date: startedAt,
    command: `npx tsx bench/gateway-first-answer.ts --tools ${TOOLS} --embeddings ${EMBEDDINGS}${DATABASE ? " --database postgres://…" : ""}`,
    code: codeVersion(),
    machine: machine(),
    load: { before: loadBefore, after: loadAfter },
    settings: {
      tools: TOOLS,
      embeddings: EMBEDDINGS,
      upstream: "hostile-server.mjs over stdio",
      intent: INTENT,
      expected: EXPECTED,
      home: DATABASE ? "PostgreSQL server, a new project per arm" : "fresh embedded directory per arm",
    },
    arms: [atOnce, waited].map(({ churn: _c, ...a }) => a),
    churn: atOnce.churn,
    targets: { initializeMs: 2000, lexicalSearchMs: 100, loopDelayP99Ms: 50 },
  };
  writeResult(STEM, result);
  const s = (x: number) => (x / 1000).toFixed(1);
  const md = [
    `# Gateway: time to the first answer${DATABASE ? ", on PostgreSQL" : ""} (${startedAt.slice(0, 10)})`,
    "",
    `${machine()}; load before ${loadBefore.map((x) => x.toFixed(2)).join(" ")}, after ${loadAfter.map((x) => x.toFixed(2)).join(" ")}; code ${result.code}.`,
    `${DATABASE ? "PostgreSQL (a new project per arm)" : "A fresh embedded home per arm"}, one upstream of ${TOOLS} tools (+5 control tools) over stdio, ${EMBEDDINGS} embeddings; the SDK client searches "${INTENT}".`,
    "Times from the gateway's start (opening the fresh home apart); loop delay from the start to the full answer.",
    "",
    markdownTable(
      [
        "arm",
        "open home s",
        "initialize s",
        "first answer s",
        "first search ms",
        "first answer ranked by",
        "found " + EXPECTED,
        "full answer s",
        "loop delay p99 ms",
        "loop delay max ms",
      ],
      result.arms.map((a) => [
        a.arm,
        s(a.openHome.ms),
        s(a.initializeMs),
        s(a.firstAnswerMs),
        a.firstSearchMs,
        a.firstDegraded ? "lexical + graph" : "every channel",
        a.firstFound ? "yes" : "no",
        s(a.fullAnswerMs),
        a.loopDelayMs.p99,
        a.loopDelayMs.max,
      ]),
    ),
    "",
    "Churn storm after the full answer (20 tools/list_changed 50 ms apart, then every tool renamed), until the new catalog's index is built:",
    "",
    markdownTable(
      [
        "settled s",
        "loop delay p50 ms",
        "p99 ms",
        "max ms",
        "searches during",
        "of them degraded",
        "search p50 ms",
        "search p99 ms",
      ],
      atOnce.churn
        ? [
            [
              s(atOnce.churn.settledMs),
              atOnce.churn.loopDelayMs.p50,
              atOnce.churn.loopDelayMs.p99,
              atOnce.churn.loopDelayMs.max,
              atOnce.churn.searchesDuring,
              atOnce.churn.degradedDuring,
              atOnce.churn.searchMs.p50,
              atOnce.churn.searchMs.p99,
            ],
          ]
        : [],
    ),
    "",
  ].join("\n");
  const { writeFileSync } = await import("node:fs");
  writeFileSync(join(RESULTS_DIR, `${STEM}.md`), md);
  process.stdout.write(`${md}\n`);
}

await main();
