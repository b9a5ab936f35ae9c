/**
 * The gateway keeps what it learns through a database outage: on a throwaway PostgreSQL cluster, agents keep
 * calling an upstream through the gateway while the cluster is stopped for 10 s; every execution they closed
 * is in the database afterwards, exactly once. A gateway closed during an outage leaves its backlog in the
 * spool, and the next gateway on the same spool writes it. A step whose tool the catalog refused (a control
 * character in its name, a 200 KB description) is left out and counted; the rest of its execution is stored.
 * Upstream: test/gateway/fixtures/odd-server.mjs over stdio, driven by the SDK client.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PgCluster, startCluster } from "../../bench/lib/pg-cluster.ts";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { registerGatewayMetrics } from "../../src/gateway/gateway-metrics.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { MetricsRegistry } from "../../src/ops/metrics.ts";

const fixture = join(process.cwd(), "test/gateway/fixtures/odd-server.mjs");
const config = parseGatewayConfig({ mcpServers: { odd: { command: process.execPath, args: [fixture] } } });

let cluster: PgCluster;
let dir: string;
let tg: Toolgraph;

beforeAll(async () => {
  cluster = await startCluster();
  dir = await mkdtemp(join(tmpdir(), "tg-durable-"));
  tg = await openToolgraph({
    database: cluster.url,
    project: "gw",
    embeddings: "hash:256",
    connectTimeoutMs: 1000,
    onConnectionError: () => {},
  });
}, 180_000);

afterAll(async () => {
  await tg?.close();
  await cluster?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function newGateway(spoolDir: string, project = "gw"): Gateway {
  return new Gateway(tg, {
    config,
    project,
    spoolDir,
    idleMs: 60_000,
    writeMinBackoffMs: 50,
    writeMaxBackoffMs: 500,
    log: () => {},
  });
}

async function agent(g: Gateway): Promise<{ client: Client; close: () => Promise<void> }> {
  const session = g.createSession({ user: "ana" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await session.server.connect(a);
  const client = new Client({ name: "durable-test", version: "1" });
  await client.connect(b);
  return { client, close: () => session.close() };
}

/** One execution: an intent (search_tools, which may fail while the database is down), then two calls. */
async function run(client: Client, n: number, tools = ["odd.echo", "odd.echo"]): Promise<void> {
  await client.callTool({ name: "search_tools", arguments: { intent: `echo the greeting number ${n}` } });
  for (const name of tools) {
    const r = (await client.callTool({
      name: "call_tool",
      arguments: { name, arguments: { text: `hello ${n}` } },
    })) as { isError?: boolean };
    expect(r.isError ?? false).toBe(false); // the upstream answers whatever the database does
  }
}

async function storedIntents(prefix: string): Promise<string[]> {
  const rows = await cluster.query<{ intent: string }>(
    "SELECT intent FROM executions WHERE project = 'gw' AND intent LIKE $1 ORDER BY intent",
    [`${prefix}%`],
  );
  return rows.map((r) => r.intent);
}

async function until(what: string, f: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("recording through a database outage", () => {
  it("executions closed while PostgreSQL is stopped for 10 s are all stored, once, after it returns", {
    timeout: 180_000,
  }, async () => {
    const spool = join(dir, "spool-outage");
    const g = newGateway(spool);
    await g.start();
    const agents = await Promise.all([agent(g), agent(g)]);
    for (let i = 0; i < 3; i++) for (const [k, a] of agents.entries()) await run(a.client, 100 + 10 * k + i);
    await cluster.stop();
    const downAt = Date.now();
    let i = 3;
    while (Date.now() - downAt < 10_000) {
      for (const [k, a] of agents.entries()) await run(a.client, 100 + 10 * k + i);
      i++;
      await new Promise((r) => setTimeout(r, 200));
    }
    // A new intent closed each earlier execution: those wait in the backlog, on disk.
    const during = g.status().recorded;
    expect(during.backlog).toBeGreaterThan(0);
    expect(during.spooled).toBeGreaterThan(0);
    expect(during.failedWrites).toBeGreaterThan(0);
    expect((await readdir(spool)).length).toBeGreaterThan(0);
    const metrics = new MetricsRegistry();
    registerGatewayMetrics(metrics, g);
    const spooledGauge = async () =>
      Number(/toolgraph_gateway_write_backlog\{where="spool"\} (\d+)/.exec(await metrics.render())?.[1]);
    expect(await spooledGauge()).toBe(g.status().recorded.spooled);
    const status = (await agents[0]!.client.callTool({ name: "gateway_status", arguments: {} })) as {
      content: { text: string }[];
    };
    expect(status.content[0]!.text).toMatch(/\d+ waiting to be written \(\d+ spooled\), retrying/);
    await cluster.start();
    for (const a of agents) await a.close(); // closes the open executions
    await until("the backlog to drain", () => g.status().recorded.backlog === 0);

    const expected = agents
      .flatMap((_, k) => Array.from({ length: i }, (_, j) => `echo the greeting number ${100 + 10 * k + j}`))
      .sort();
    expect(await storedIntents("echo the greeting number 1")).toEqual(expected);
    const rec = g.status().recorded;
    expect(rec).toMatchObject({
      executions: expected.length,
      steps: 2 * expected.length,
      backlog: 0,
      spooled: 0,
      rejected: 0,
      dropped: 0,
    });
    expect(await readdir(spool)).toEqual([]);
    expect(await spooledGauge()).toBe(0);
    await g.close();
  });

  it("a gateway closed during an outage spools its backlog; the next one on the spool stores it", {
    timeout: 180_000,
  }, async () => {
    const spool = join(dir, "spool-restart");
    const g1 = newGateway(spool);
    await g1.start();
    const a = await agent(g1);
    await cluster.stop();
    for (let n = 0; n < 4; n++) await run(a.client, 200 + n);
    await g1.close(500); // ends the session; its writes cannot finish: they stay in the spool
    expect(g1.status().recorded.backlog).toBeGreaterThan(0);
    expect((await readdir(spool)).length).toBeGreaterThan(0);
    await cluster.start();

    const g2 = newGateway(spool);
    expect(g2.status().recorded.spooled).toBe(4);
    await g2.start();
    await until("the spool to be written", () => g2.status().recorded.backlog === 0);
    expect(await storedIntents("echo the greeting number 2")).toEqual(
      [200, 201, 202, 203].map((n) => `echo the greeting number ${n}`),
    );
    expect(await readdir(spool)).toEqual([]);
    await g2.close();
  });

  it("a gateway started while PostgreSQL is down relays calls, then syncs its catalog and stores what it learned", {
    timeout: 180_000,
  }, async () => {
    await cluster.stop();
    const g = newGateway(join(dir, "spool-down"), "gw-down");
    await g.start(); // the first sync fails: it is retried with backoff
    const a = await agent(g);
    for (let n = 0; n < 3; n++) await run(a.client, 400 + n);
    await cluster.start();
    await until(
      "the catalog sync",
      async () => (await cluster.query("SELECT id FROM tools WHERE project = 'gw-down'")).length > 0,
    );
    await a.close();
    await until("the backlog to drain", () => g.status().recorded.backlog === 0);
    const rows = await cluster.query<{ intent: string }>(
      "SELECT intent FROM executions WHERE project = 'gw-down' ORDER BY intent",
    );
    expect(rows.map((r) => r.intent)).toEqual([400, 401, 402].map((n) => `echo the greeting number ${n}`));
    await g.close();
  });

  it("steps of tools the catalog refused are left out and counted; the execution's other steps are stored", {
    timeout: 120_000,
  }, async () => {
    const g = newGateway(join(dir, "spool-odd"));
    await g.start();
    const ids = (await cluster.query<{ id: string }>("SELECT id FROM tools WHERE project = 'gw' ORDER BY id")).map(
      (r) => r.id,
    );
    expect(ids).toEqual(["odd.echo"]); // the other two were refused by the catalog
    const a = await agent(g);
    await run(a.client, 300, ["odd.echo", "odd.ctl\u0001name", "odd.huge", "odd.echo"]);
    await a.close();
    await g.flush();
    expect(g.status().recorded).toMatchObject({ executions: 1, steps: 2, skippedSteps: 2, rejected: 0 });
    const steps = await cluster.query<{ tool_id: string; depends_on: number[] }>(
      "SELECT s.tool_id, s.depends_on FROM execution_steps s JOIN executions e ON e.project = s.project AND e.id = s.execution_id WHERE e.intent = 'echo the greeting number 300' ORDER BY s.idx",
    );
    expect(steps.map((s) => s.tool_id)).toEqual(["odd.echo", "odd.echo"]);
    // Neither refused tool was registered by the execution's write either.
    expect((await cluster.query<{ id: string }>("SELECT id FROM tools WHERE project = 'gw'")).map((r) => r.id)).toEqual(
      ["odd.echo"],
    );
    await g.close();
  });
});
