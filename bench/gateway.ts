/**
 * Gateway overhead bench: the latency of `call_tool` through the gateway against a direct call
 * to the same upstream server, and what recording costs the call.
 *
 * Three arms, each with its own server-everything process over stdio, called in strict alternation
 * (direct, gateway learning, gateway with learning off) so that the machine's load hits all three alike:
 * - direct: the SDK Client calls `get-sum` on the upstream;
 * - gateway (learn): an SDK Client over an in-memory transport calls `call_tool` on a gateway session
 *   (zod-validated arguments, forward through the gateway's SDK Client, result returned unchanged) while
 *   the session's calls are recorded — an execution every `--per-execution` calls (session end), written
 *   through recordExecution on the embedded database;
 * - gateway (no learn): the same with learning off.
 * Added latency = gateway percentile − direct percentile (target: ≤ 1 ms at p50). Recording must add
 * nothing: learn vs no-learn at p50/p99. The write time of the recorded executions (off the call's path)
 * is reported beside it.
 *
 *   npx tsx bench/gateway.ts [--calls 2000] [--warmup 200] [--per-execution 20]
 */
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Gateway, type GatewaySession, parseGatewayConfig } from "../src/gateway/index.ts";
import { openToolgraph } from "../src/index.ts";
import { fmt, machine, markdownTable, RESULTS_DIR, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "2000" },
    warmup: { type: "string", default: "200" },
    "per-execution": { type: "string", default: "20" },
  },
});
const CALLS = Number(values.calls);
const WARMUP = Number(values.warmup);
const PER_EXECUTION = Number(values["per-execution"]);

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

function summary(xs: number[]) {
  return {
    n: xs.length,
    p50: pct(xs, 50),
    p95: pct(xs, 95),
    p99: pct(xs, 99),
    mean: xs.reduce((a, b) => a + b, 0) / xs.length,
  };
}

async function main(): Promise<void> {
  const uptimeBefore = loadavg();
  const tg = await openToolgraph({ home: "memory://", database: "", project: "bench", embeddings: "hash:256" });
  const config = (name: string) =>
    parseGatewayConfig({ mcpServers: { [name]: { command: process.execPath, args: [everything, "stdio"] } } });
  const learn = new Gateway(tg, { config: config("everything"), log: () => {} });
  const noLearn = new Gateway(tg, {
    config: config("everything"),
    project: "bench-nolearn",
    learn: false,
    log: () => {},
  });
  await learn.start();
  await noLearn.start();

  const direct = new Client({ name: "direct", version: "1" });
  await direct.connect(
    new StdioClientTransport({ command: process.execPath, args: [everything, "stdio"], stderr: "ignore" }),
  );

  async function open(g: Gateway): Promise<{ client: Client; session: GatewaySession }> {
    const session = g.createSession({ user: "bench" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    const client = new Client({ name: "bench-agent", version: "1" });
    await client.connect(b);
    await client.callTool({ name: "search_tools", arguments: { intent: "add two numbers" } });
    return { client, session };
  }
  let L = await open(learn);
  let N = await open(noLearn);

  const times = { direct: [] as number[], learn: [] as number[], noLearn: [] as number[] };
  const args = (i: number) => ({ a: i, b: 1000 + i });
  const time = async (f: () => Promise<unknown>) => {
    const t0 = performance.now();
    await f();
    return performance.now() - t0;
  };
  let rotate = 0;
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const order = [0, 1, 2].map((k) => (k + rotate) % 3);
    rotate++;
    for (const arm of order) {
      const ms =
        arm === 0
          ? await time(() => direct.callTool({ name: "get-sum", arguments: args(i) }))
          : arm === 1
            ? await time(() =>
                L.client.callTool({ name: "call_tool", arguments: { name: "everything.get-sum", arguments: args(i) } }),
              )
            : await time(() =>
                N.client.callTool({ name: "call_tool", arguments: { name: "everything.get-sum", arguments: args(i) } }),
              );
      if (i >= WARMUP) (arm === 0 ? times.direct : arm === 1 ? times.learn : times.noLearn).push(ms);
    }
    if ((i + 1) % PER_EXECUTION === 0) {
      // Session end: the learning arm's execution is handed to the write queue (off the calls' path).
      for (const [g, s] of [
        [learn, L],
        [noLearn, N],
      ] as const) {
        await s.client.close();
        await s.session.close();
        if (g === learn) L = await open(learn);
        else N = await open(noLearn);
      }
    }
  }
  const tFlush = performance.now();
  await learn.flush();
  const flushMs = performance.now() - tFlush;
  const recorded = learn.status().recorded;
  const loadAfter = loadavg();

  const d = summary(times.direct);
  const l = summary(times.learn);
  const n = summary(times.noLearn);
  const result = {
    bench: "gateway",
    date: new Date().toISOString(),
    machine: machine(),
    load: { before: uptimeBefore, after: loadAfter },
    settings: {
      calls: CALLS,
      warmup: WARMUP,
      perExecution: PER_EXECUTION,
      tool: "server-everything get-sum over stdio",
      alternation: "direct, learn, no-learn, rotating order",
    },
    latencyMs: { direct: d, gatewayLearn: l, gatewayNoLearn: n },
    addedMs: {
      learn: { p50: l.p50 - d.p50, p95: l.p95 - d.p95, p99: l.p99 - d.p99 },
      noLearn: { p50: n.p50 - d.p50, p95: n.p95 - d.p95, p99: n.p99 - d.p99 },
      recordingVsNoLearn: { p50: l.p50 - n.p50, p95: l.p95 - n.p95, p99: l.p99 - n.p99 },
    },
    target: { addedP50Ms: 1, pass: l.p50 - d.p50 <= 1 },
    recording: {
      executions: recorded.executions,
      steps: recorded.steps,
      failedWrites: recorded.failedWrites,
      remainingQueueAtEndMs: flushMs,
    },
  };
  const path = writeResult("gateway", result);
  const md = [
    `# Gateway overhead (${result.date.slice(0, 10)})`,
    "",
    `${machine()}; load before ${uptimeBefore.map((x) => x.toFixed(2)).join(" ")}, after ${loadAfter.map((x) => x.toFixed(2)).join(" ")}.`,
    `${CALLS} calls per arm after ${WARMUP} warm-up, alternating; server-everything get-sum over stdio; an execution recorded every ${PER_EXECUTION} calls.`,
    "",
    markdownTable(
      ["arm", "p50 ms", "p95 ms", "p99 ms", "mean ms", "added p50", "added p99"],
      [
        ["direct (SDK Client → upstream)", d.p50, d.p95, d.p99, d.mean, "–", "–"],
        ["gateway call_tool, learning", l.p50, l.p95, l.p99, l.mean, l.p50 - d.p50, l.p99 - d.p99],
        ["gateway call_tool, --no-learn", n.p50, n.p95, n.p99, n.mean, n.p50 - d.p50, n.p99 - d.p99],
      ],
    ),
    "",
    `Target ≤ 1 ms added at p50: ${result.target.pass ? "PASS" : "FAIL"} (${fmt(l.p50 - d.p50)} ms). Recording vs no-learn: p50 ${fmt(l.p50 - n.p50)} ms, p99 ${fmt(l.p99 - n.p99)} ms; ` +
      `${recorded.executions} executions (${recorded.steps} steps) written after the answers, ${fmt(flushMs)} ms of writes left when the calls ended.`,
    "",
  ].join("\n");
  const { writeFileSync } = await import("node:fs");
  writeFileSync(`${RESULTS_DIR}/gateway.md`, md);
  process.stdout.write(`${md}\n${path}\n`);
  await L.client.close();
  await N.client.close();
  await direct.close();
  await learn.close();
  await noLearn.close();
  await tg.close();
}

await main();
