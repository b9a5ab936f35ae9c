/**
 * Time to the first answer of a gateway on a fresh home in front of a large upstream, and the event loop while
 * it embeds and while the upstream churns.
 *
 * The upstream is test/gateway/fixtures/hostile-server.mjs over stdio listing `--tools` tools (default 3,000,
 * plus its 5 control tools). Each arm opens a fresh embedded home (a new temporary directory), a gateway, and
 * an SDK Client over an in-memory transport, as an agent connects:
 * - answer at once (the gateway CLI's way: the session is served while the gateway starts, without waiting for
 *   the embeddings): time from the start to `initialize` answered, the first `search_tools` (which waits for the
 *   upstream's listing; ranked lexically: `degraded: "embedding"`) and whether it found the tool it was asked
 *   for, the next search (the lexical latency), then time until a search answers with every channel;
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
 *     [--arms now,wait] [--churns 1] [--profile] [--verbose]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Gateway, parseGatewayConfig } from "../src/gateway/index.ts";
import { openToolgraph } from "../src/index.ts";
import { blockSampler, loopProfiler, Phases, type ProfiledBlock, profiledBlocks } from "./lib/loop-blocks.ts";
import { codeVersion, machine, markdownTable, percentiles, RESULTS_DIR, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    tools: { type: "string", default: "3000" },
    embeddings: { type: "string", default: "use-lite" },
    database: { type: "string" },
    /** Which arms to run: "now" (answer at once, then the churn storm), "wait", or both (default). */
    arms: { type: "string", default: "now,wait" },
    /** Profile the event loop's thread (node:inspector) and list what held it in each block over 50 ms. */
    profile: { type: "boolean", default: false },
    /** Churn storms in a row (each renames every tool again), for more searches during the churn. Default 1. */
    churns: { type: "string", default: "1" },
    /** Print the gateway's log lines and the bench's phases on stderr, with the time since the start. */
    verbose: { type: "boolean", default: false },
  },
});
const ARMS = new Set(values.arms!.split(","));
/** A PostgreSQL server instead of the embedded database (each arm then uses a new project: a fresh catalog). */
const DATABASE = values.database;
const STEM = DATABASE ? "gateway-first-answer-postgres" : "gateway-first-answer";
const TOOLS = Number(values.tools);
const CHURNS = Number(values.churns);
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
  const phases = new Phases();
  const sampler = blockSampler(phases);
  const profiler = values.profile ? await loopProfiler() : undefined;
  phases.set("open home");
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
  phases.set("start (upstream listed, catalog synced)");
  const stopLoop = loopMonitor();
  const config = parseGatewayConfig({
    mcpServers: { hostile: { command: process.execPath, args: [fixture], env: { HOSTILE_TOOLS: String(TOOLS) } } },
  });
  const say = values.verbose
    ? (l: string) => process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(2)} s ${l.slice(0, 300)}\n`)
    : () => {};
  const mark = (name: string) => {
    phases.set(name);
    say(`— ${name}`);
  };
  const gateway = new Gateway(tg, { config, log: say });
  /** The loop's blocks over 50 ms by phase (count, longest), and with --profile what held the loop in each. */
  const blocks = async () => {
    const sampled = sampler.stop();
    const byPhase: Record<
      string,
      { count: number; maxMs: number; totalMs: number; cpuOver50: number; maxCpuMs: number }
    > = {};
    for (const b of sampled) {
      if (!byPhase[b.phase]) byPhase[b.phase] = { count: 0, maxMs: 0, totalMs: 0, cpuOver50: 0, maxCpuMs: 0 };
      const p = byPhase[b.phase]!;
      p.count++;
      p.maxMs = Math.max(p.maxMs, Math.round(b.ms));
      p.totalMs += Math.round(b.ms);
      if ((b.cpuMs ?? 0) > 50) p.cpuOver50++;
      p.maxCpuMs = Math.max(p.maxCpuMs, b.cpuMs ?? 0);
    }
    let profiled: ProfiledBlock[] | undefined;
    if (profiler) profiled = profiledBlocks(await profiler.stop(), sampled);
    // With a profile: how many late ticks had over 50 ms of JavaScript (or GC) on the loop's thread (ours to fix);
    // the rest waited for a CPU (the machine's load).
    const busyOver50 = profiled?.filter((b) => b.busyMs > 50).length;
    return {
      phases: phases.summary(),
      over50ms: byPhase,
      busyOver50,
      profiled: profiled?.sort((a, b) => b.busyMs - a.busyMs).slice(0, 40),
    };
  };
  try {
    // Answer at once (the gateway CLI's way): the session is served while the gateway starts; its first search
    // waits for the upstream's listing. Waiting for the embeddings (the old way): served after start().
    const started = gateway.start({ waitForEmbeddings: wait });
    if (wait) await started;
    mark("initialize");
    const session = gateway.createSession();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    const client = new Client({ name: "first-answer", version: "1" });
    await client.connect(b);
    const initializeMs = performance.now() - t0;
    mark("first search");
    const first = await search(client);
    await started;
    // A search once the catalog is in (still lexical while the embeddings are computed): the lexical latency.
    const second = await search(client);
    mark("until the full answer (embedding)");
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
      secondSearchMs: second.ms,
      secondDegraded: second.degraded ?? null,
      firstDegraded: first.degraded ?? null,
      firstTop: first.top ?? first.error ?? null,
      firstFound: first.top === EXPECTED,
      fullAnswerMs,
      loopDelayMs: loop,
    };
    if (!churn) return { ...out, blocks: await blocks(), churn: undefined };
    // The storm: 20 notifications 50 ms apart, then every tool renamed (a new catalog to sync and embed), `--churns`
    // times.
    const stopChurnLoop = loopMonitor();
    const c0 = performance.now();
    const searches: { ms: number; degraded: boolean }[] = [];
    for (let generation = 1; generation <= CHURNS; generation++) {
      mark("churn storm");
      await client.callTool({
        name: "call_tool",
        arguments: { name: "hostile.storm", arguments: { count: 20, everyMs: 50 } },
      });
      await client.callTool({ name: "call_tool", arguments: { name: "hostile.rename", arguments: {} } });
      const renamed = `hostile.g${generation}_tool_${Math.min(7, TOOLS - 1)}`;
      // Until the renamed tools are in the catalog (the re-list is debounced), then until their index is built.
      let synced = false;
      while (!synced) {
        const s = await search(client);
        searches.push({ ms: s.ms, degraded: s.degraded !== undefined });
        const found = (await client.callTool({
          name: "search_tools",
          arguments: { intent: `generation ${generation} tool number ${Math.min(7, TOOLS - 1)}`, limit: 10 },
        })) as { structuredContent?: any };
        synced = (found.structuredContent?.results ?? []).some((r: { tool: string }) => r.tool === renamed);
        if (!synced) await new Promise((r) => setTimeout(r, 500));
      }
      mark("churn: until the renamed catalog is indexed");
      let settled = false;
      const settle = gateway.flush().then(() => {
        settled = true;
      });
      while (!settled) {
        const s = await search(client);
        searches.push({ ms: s.ms, degraded: s.degraded !== undefined });
        await Promise.race([settle, new Promise((r) => setTimeout(r, 500))]);
      }
    }
    const after = await search(client);
    const churnLoop = stopChurnLoop();
    return {
      ...out,
      blocks: await blocks(),
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
    if (profiler) await profiler.stop().catch(() => undefined);
    sampler.stop();
    await gateway.close();
    await tg.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const startedAt = new Date().toISOString();
  const atOnce = ARMS.has("now") ? await arm(false, true) : undefined;
  const waited = ARMS.has("wait") ? await arm(true, false) : undefined;
  const loadAfter = loadavg();
  const result = {
    bench: STEM,
    date: startedAt,
    command: `npx tsx bench/gateway-first-answer.ts --tools ${TOOLS} --embeddings ${EMBEDDINGS} --churns ${CHURNS}${DATABASE ? " --database postgres://…" : ""}`,
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
    arms: [atOnce, waited].filter((a) => a !== undefined).map(({ churn: _c, ...a }) => a),
    churn: atOnce?.churn,
    targets: { initializeMs: 2000, lexicalSearchMs: 100, loopDelayP99Ms: 50 },
  };
  // A partial or profiled run is a diagnosis, not the figures: it goes to the temporary directory.
  const partial = values.profile || ARMS.size < 2;
  const outDir = partial ? mkdtempSync(join(tmpdir(), "tg-first-answer-result-")) : RESULTS_DIR;
  if (partial) writeFileSync(join(outDir, `${STEM}.json`), `${JSON.stringify(result, null, 2)}\n`);
  else writeResult(STEM, result);
  const s = (x: number) => (x / 1000).toFixed(1);
  const md = [
    `# Gateway: time to the first answer${DATABASE ? ", on PostgreSQL" : ""} (${startedAt.slice(0, 10)})`,
    "",
    `${machine()}; load before ${loadBefore.map((x) => x.toFixed(2)).join(" ")}, after ${loadAfter.map((x) => x.toFixed(2)).join(" ")}; code ${result.code}.`,
    `${DATABASE ? "PostgreSQL (a new project per arm)" : "A fresh embedded home per arm"}, one upstream of ${TOOLS} tools (+5 control tools) over stdio, ${EMBEDDINGS} embeddings; the SDK client searches "${INTENT}".`,
    "Times from the gateway's start (opening the fresh home apart); loop delay from the start to the full answer. Answer at",
    "once: the session is served while the gateway starts, its first search waits for the upstream's listing; the next",
    "search is the lexical latency once the catalog is in.",
    "",
    markdownTable(
      [
        "arm",
        "open home s",
        "initialize s",
        "first answer s",
        "first search ms",
        "next search ms",
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
        a.secondSearchMs,
        a.firstDegraded ? "lexical + graph" : "every channel",
        a.firstFound ? "yes" : "no",
        s(a.fullAnswerMs),
        a.loopDelayMs.p99,
        a.loopDelayMs.max,
      ]),
    ),
    "",
    `Churn storm after the full answer (20 tools/list_changed 50 ms apart, then every tool renamed), until the new catalog's index is built${CHURNS > 1 ? `, ${CHURNS} times` : ""}:`,
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
      atOnce?.churn
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
    "Each phase's wall time and the CPU time the event loop's thread used in it (/proc; the machine's load shows",
    "as wall time far above CPU time):",
    "",
    markdownTable(
      ["arm", "phase", "wall ms", "loop thread CPU ms"],
      result.arms.flatMap((a) => a.blocks.phases.map((p) => [a.arm, p.phase, p.wallMs, p.loopCpuMs ?? "–"])),
    ),
    "",
    "Event-loop blocks over 50 ms (a 10 ms timer arriving late), by phase: count, longest, total; then how many of",
    "them had the loop's thread use over 50 ms of CPU (/proc, 10 ms resolution: the rest waited for a CPU) and the most:",
    "",
    markdownTable(
      ["arm", "phase", "blocks", "longest ms", "total ms", "of them > 50 ms CPU", "most CPU ms"],
      result.arms.flatMap((a) =>
        Object.entries(a.blocks.over50ms).map(([phase, b]) => [
          a.arm,
          phase,
          b.count,
          b.maxMs,
          b.totalMs,
          b.cpuOver50,
          b.maxCpuMs,
        ]),
      ),
    ),
    "",
  ].join("\n");
  writeFileSync(join(outDir, `${STEM}.md`), md);
  process.stdout.write(`${md}\n`);
  for (const a of result.arms)
    for (const b of a.blocks.profiled ?? [])
      process.stdout.write(
        `${a.arm} | ${b.phase} | at ${(b.atMs / 1000).toFixed(1)} s | ${b.ms.toFixed(0)} ms late, ${b.busyMs} ms busy, ${b.cpuMs ?? "?"} ms CPU | ours: ${b.ours.map((o) => `${o.fn} ${o.ms}`).join("; ")} | self: ${b.self.map((o) => `${o.fn} ${o.ms}`).join("; ")}\n`,
      );
  for (const a of result.arms)
    if (a.blocks.busyOver50 !== undefined)
      process.stdout.write(
        `${a.arm}: ${a.blocks.busyOver50} late ticks with over 50 ms of JavaScript or GC on the loop\n`,
      );
  if (partial) process.stdout.write(`results in ${outDir}\n`);
}

await main();
