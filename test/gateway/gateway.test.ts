/**
 * The gateway end to end against MCP servers nobody here wrote — server-everything, server-filesystem (on a
 * temp directory) and server-memory, installed from npm as pinned devDependencies and spawned over stdio —
 * driven by the official SDK Client as an agent would: list, search, call through the gateway (a call that
 * fails, one to a server killed mid-session, one that times out), then the executions recorded (steps,
 * outcomes, data-flow edges) and suggest_next_tool after them. Embedded database, hash embeddings.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway, type GatewaySession } from "../../src/gateway/gateway.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const require = createRequire(import.meta.url);
const bin = (pkg: string) => require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`);

let dir: string;
let tg: Toolgraph;
let gateway: Gateway;

async function agent(g: Gateway = gateway, name = "agent-test"): Promise<{ client: Client; session: GatewaySession }> {
  const session = g.createSession();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await session.server.connect(a);
  const client = new Client({ name, version: "1" });
  await client.connect(b);
  return { client, session };
}

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<any> {
  return c.callTool({ name, arguments: args });
}

const text = (r: any): string => r.content.map((x: any) => x.text ?? "").join("\n");

async function executions(project = tg.project) {
  const db = engineOf(tg).db;
  const rows = await db
    .selectFrom("executions")
    .selectAll()
    .where("project", "=", project)
    .orderBy("recorded_at")
    .orderBy("id")
    .execute();
  const steps = await db
    .selectFrom("execution_steps")
    .selectAll()
    .where("project", "=", project)
    .orderBy("execution_id")
    .orderBy("idx")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    intent: r.intent,
    user: r.user_id,
    success: r.success,
    steps: steps
      .filter((s) => s.execution_id === r.id)
      .map((s) => ({
        tool: s.tool_id,
        success: s.success,
        dependsOn: s.depends_on as number[],
        durationMs: s.duration_ms,
      })),
  }));
}

async function waitFor<T>(what: string, f: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tg-gateway-"));
  await writeFile(join(dir, "notes.txt"), "alpha beta gamma\n");
  await writeFile(join(dir, "todo.txt"), "write the gateway\n");
  tg = await openToolgraph({ home: "memory://", database: "", project: "gw", embeddings: "hash:256" });
  const config = parseGatewayConfig({
    mcpServers: {
      everything: { command: process.execPath, args: [bin("server-everything"), "stdio"] },
      fs: { command: process.execPath, args: [bin("server-filesystem"), dir] },
      memory: {
        command: process.execPath,
        args: [bin("server-memory")],
        env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") },
      },
      broken: {
        command: process.execPath,
        args: ["-e", "process.stderr.write('no such backend\\n'); process.exit(3)"],
      },
      slow: { command: process.execPath, args: [bin("server-everything"), "stdio"], timeoutMs: 300 },
    },
  });
  gateway = new Gateway(tg, { config, minBackoffMs: 100, maxBackoffMs: 400, idleMs: 60_000, log: () => {} });
  await gateway.start();
}, 180_000);

afterAll(async () => {
  await gateway?.close();
  await tg?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("catalog from the upstream servers", () => {
  it("lists every upstream's tools into the catalog as <server>.<tool> with server, description and schemas", async () => {
    const s = await engineOf(tg).snapshot("gw");
    const ids = s.tools.map((t) => t.id);
    for (const id of [
      "everything.echo",
      "everything.get-sum",
      "fs.read_text_file",
      "fs.write_file",
      "fs.search_files",
      "memory.create_entities",
      "memory.read_graph",
    ]) {
      expect(ids).toContain(id);
    }
    const sum = s.tools[s.index.get("everything.get-sum")!]!;
    expect(sum.server).toBe("everything");
    expect(sum.description).toBe("Returns the sum of two numbers");
    expect(sum.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
    });
    // Every tool the servers list is there, none of another server's.
    const upstream = gateway.upstreams
      .get("fs")!
      .tools.map((t) => `fs.${t.name}`)
      .sort();
    expect(ids.filter((i) => i.startsWith("fs.")).sort()).toEqual(upstream);
  });

  it("maps annotations to safety tags: destructiveHint → destructive, openWorldHint → network, readOnlyHint → none", async () => {
    const s = await engineOf(tg).snapshot("gw");
    const tags = (id: string) => s.tools[s.index.get(id)!]!.safetyTags;
    expect(tags("fs.write_file")).toEqual(["destructive"]);
    expect(tags("fs.read_text_file")).toEqual([]);
    expect(tags("everything.gzip-file-as-resource")).toEqual(["network"]);
    expect(tags("everything.get-sum")).toEqual([]);
  });

  it("a server that fails to start is reported down, naming it, and the others serve", async () => {
    const st = gateway.status();
    expect(st.down).toContain("broken");
    const broken = st.servers.find((x) => x.server === "broken")!;
    expect(broken.error).toMatch(/failed to start|connection closed/);
    expect(st.servers.find((x) => x.server === "everything")!.state).toBe("up");
    const { client } = await agent();
    const r = await call(client, "call_tool", { name: "broken.anything", arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server broken is (down|connecting)/);
    const status = await call(client, "gateway_status", {});
    expect(status.structuredContent.down).toContain("broken");
    await client.close();
  });
});

describe("an agent through the gateway", () => {
  it("sees toolgraph's tools plus call_tool", async () => {
    const { client } = await agent();
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of [
      "search_tools",
      "suggest_next_tool",
      "plan_workflow",
      "record_execution",
      "call_tool",
      "gateway_status",
    ])
      expect(names).toContain(n);
    expect(names.some((n) => n.startsWith("everything."))).toBe(false);
    await client.close();
  });

  it("call_tool returns the upstream's result unchanged (content, structuredContent, isError)", async () => {
    const direct = new Client({ name: "direct", version: "1" });
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    await direct.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin("server-everything"), "stdio"],
        stderr: "ignore",
      }),
    );
    const { client } = await agent();
    for (const [tool, args] of [
      ["get-sum", { a: 3, b: 4 }],
      ["get-structured-content", { location: "New York" }],
      ["echo", { message: "héllo" }],
    ] as const) {
      const viaGateway = await call(client, "call_tool", { name: `everything.${tool}`, arguments: args });
      const straight = await direct.callTool({ name: tool, arguments: args as Record<string, unknown> });
      expect(viaGateway).toEqual(straight);
    }
    // An upstream isError result comes back as is.
    const bad = await call(client, "call_tool", { name: "fs.read_text_file", arguments: { path: "/etc/passwd" } });
    const badDirect = await (async () => {
      const fsDirect = new Client({ name: "direct-fs", version: "1" });
      await fsDirect.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [bin("server-filesystem"), dir],
          stderr: "ignore",
        }),
      );
      const r = await fsDirect.callTool({ name: "read_text_file", arguments: { path: "/etc/passwd" } });
      await fsDirect.close();
      return r;
    })();
    expect(bad.isError).toBe(true);
    expect(bad).toEqual(badDirect);
    await client.close();
    await direct.close();
  });

  it("search_tools finds upstream tools by intent", async () => {
    const { client } = await agent();
    const r = await call(client, "search_tools", { intent: "add two numbers and return their sum", limit: 5 });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.results.map((x: any) => x.tool)).toContain("everything.get-sum");
    await client.close();
  });
});

describe("learning from the calls", () => {
  it("records each intent's calls as an execution: steps, outcomes, durations, data-flow edges", async () => {
    const before = (await executions()).length;
    const { client, session } = await agent(gateway, "learner");
    await call(client, "search_tools", { intent: "sum numbers then add more", user: "ada" });
    await new Promise((r) => setImmediate(r));
    const first = await call(client, "call_tool", { name: "everything.get-sum", arguments: { a: 17, b: 25 } });
    expect(text(first)).toBe("The sum of 17 and 25 is 42.");
    await call(client, "call_tool", { name: "everything.get-sum", arguments: { a: 42, b: 100 } }); // 42 came from step 0
    await call(client, "call_tool", { name: "everything.echo", arguments: { message: "unrelated words" } }); // no data flow
    const found = await call(client, "call_tool", {
      name: "fs.search_files",
      arguments: { path: dir, pattern: "*.txt" },
    });
    const notes = join(dir, "notes.txt");
    expect(text(found)).toContain(notes);
    await call(client, "call_tool", { name: "fs.read_text_file", arguments: { path: notes } }); // path came from step 3
    await call(client, "call_tool", { name: "fs.read_text_file", arguments: { path: join(dir, "missing.txt") } }); // fails
    // A new intent closes the execution.
    await call(client, "plan_workflow", { intent: "remember a person in the knowledge graph" });
    await new Promise((r) => setImmediate(r));
    await call(client, "call_tool", {
      name: "memory.create_entities",
      arguments: { entities: [{ name: "Ada Lovelace", entityType: "person", observations: ["wrote notes"] }] },
    });
    await call(client, "call_tool", { name: "memory.read_graph", arguments: {} });
    await call(client, "call_tool", { name: "memory.open_nodes", arguments: { names: ["Ada Lovelace"] } }); // name returned by read_graph
    await client.close();
    await session.close();
    await gateway.flush();
    const all = await executions();
    const mine = all.slice(before);
    expect(mine.length).toBe(2);
    const [a, b] = mine as [any, any];
    expect(a.intent).toBe("sum numbers then add more");
    expect(a.user).toBe("ada");
    expect(a.steps.map((s: any) => [s.tool, s.success, s.dependsOn])).toEqual([
      ["everything.get-sum", true, []],
      ["everything.get-sum", true, [0]],
      ["everything.echo", true, []],
      ["fs.search_files", true, []],
      ["fs.read_text_file", true, [3]],
      ["fs.read_text_file", false, []],
    ]);
    expect(a.success).toBe(false); // its last step failed
    for (const s of a.steps) expect(s.durationMs).toBeGreaterThanOrEqual(0);
    expect(b.intent).toBe("remember a person in the knowledge graph");
    // create_entities echoes its own arguments (not its output); read_graph returned the name open_nodes used.
    expect(b.steps.map((s: any) => [s.tool, s.success, s.dependsOn])).toEqual([
      ["memory.create_entities", true, []],
      ["memory.read_graph", true, []],
      ["memory.open_nodes", true, [1]],
    ]);
    expect(b.success).toBe(true);
    expect(b.user).toBe("ada");
  });

  it("suggest_next_tool reflects the recorded executions", async () => {
    const { client: probe } = await agent();
    const edge = async () =>
      (await engineOf(tg).snapshot("gw")).edge("everything.get-tiny-image", "everything.get-env");
    expect(await edge()).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      const { client, session } = await agent(gateway, "teacher");
      await call(client, "search_tools", { intent: `fetch a tiny image then read the environment ${i}` });
      await new Promise((r) => setImmediate(r));
      await call(client, "call_tool", { name: "everything.get-tiny-image", arguments: {} });
      await call(client, "call_tool", { name: "everything.get-env", arguments: {} });
      await client.close();
      await session.close();
    }
    await gateway.flush();
    expect((await edge())!.counts.sequence).toBe(3);
    const after = await call(probe, "suggest_next_tool", { context: ["everything.get-tiny-image"], mode: "markov" });
    expect(after.structuredContent.suggestions[0].tool).toBe("everything.get-env");
    const recorded = (await executions()).filter((e) => e.user === "teacher");
    expect(recorded.length).toBe(3);
    await probe.close();
  });

  it("a server killed mid-session gives an isError naming it, the others keep serving, and it comes back", async () => {
    const { client, session } = await agent(gateway, "killer");
    await call(client, "search_tools", { intent: "read the knowledge graph after a crash" });
    await new Promise((r) => setImmediate(r));
    expect((await call(client, "call_tool", { name: "memory.read_graph", arguments: {} })).isError).toBeFalsy();
    const pid = gateway.status().servers.find((s) => s.server === "memory")!.pid!;
    process.kill(pid, "SIGKILL");
    await waitFor("memory down", () => gateway.status().down.includes("memory"));
    const r = await call(client, "call_tool", { name: "memory.read_graph", arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server memory is (down|connecting)/);
    expect(gateway.status().servers.find((s) => s.server === "memory")!.error).toMatch(/connection closed/);
    // The others keep serving.
    expect(
      text(await call(client, "call_tool", { name: "everything.echo", arguments: { message: "still here" } })),
    ).toBe("Echo: still here");
    // Reconnected with backoff.
    await waitFor("memory back up", () => gateway.status().servers.find((s) => s.server === "memory")!.state === "up");
    expect((await call(client, "call_tool", { name: "memory.read_graph", arguments: {} })).isError).toBeFalsy();
    await client.close();
    await session.close();
    await gateway.flush();
    const e = (await executions()).find((x) => x.intent === "read the knowledge graph after a crash")!;
    expect(e.steps.map((s) => [s.tool, s.success])).toEqual([
      ["memory.read_graph", true],
      ["memory.read_graph", false],
      ["everything.echo", true],
      ["memory.read_graph", true],
    ]);
  });

  it("a call that times out is an isError naming the server, recorded as failed", async () => {
    const { client, session } = await agent(gateway, "patient");
    await call(client, "search_tools", { intent: "run a long operation" });
    await new Promise((r) => setImmediate(r));
    const r = await call(client, "call_tool", {
      name: "slow.trigger-long-running-operation",
      arguments: { duration: 3, steps: 1 },
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server slow: trigger-long-running-operation timed out after 300 ms/);
    await client.close();
    await session.close();
    await gateway.flush();
    const e = (await executions()).find((x) => x.intent === "run a long operation")!;
    expect(e.steps.map((s) => [s.tool, s.success])).toEqual([["slow.trigger-long-running-operation", false]]);
    expect(e.success).toBe(false);
  });
});

describe("--no-learn", () => {
  it("records nothing", async () => {
    const project = "gw-nolearn";
    const config = parseGatewayConfig({
      mcpServers: { everything: { command: process.execPath, args: [bin("server-everything"), "stdio"] } },
    });
    const g = new Gateway(tg, { config, project, learn: false, log: () => {} });
    await g.start();
    const { client, session } = await agent(g);
    await call(client, "search_tools", { intent: "add numbers" });
    await call(client, "call_tool", { name: "everything.get-sum", arguments: { a: 1, b: 2 } });
    await call(client, "call_tool", { name: "everything.echo", arguments: { message: "three" } });
    await client.close();
    await session.close();
    await g.close();
    expect(await executions(project)).toEqual([]);
    expect((await engineOf(tg).snapshot(project)).index.has("everything.echo")).toBe(true);
  });
});
