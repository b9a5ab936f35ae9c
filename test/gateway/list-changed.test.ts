/**
 * An upstream whose tool list changes while connected (a tiny fixture server, fixtures/changing-server.mjs,
 * the only upstream here that is ours): the gateway re-lists on notifications/tools/list_changed, a new
 * tool enters the catalog (its control characters stripped), a removed one is marked unavailable — kept
 * with its history, skipped by search — and `expose` lists recommended upstream tools directly, sending
 * tools/list_changed to the agent as they change.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const fixture = fileURLToPath(new URL("./fixtures/changing-server.mjs", import.meta.url));
let tg: Toolgraph;
let gateway: Gateway;

async function waitFor(what: string, f: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function tool(id: string) {
  const s = await engineOf(tg).snapshot("lc");
  const i = s.index.get(id);
  return i === undefined ? undefined : s.tools[i];
}

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "lc", embeddings: "hash:256" });
  const config = parseGatewayConfig({ mcpServers: { changing: { command: process.execPath, args: [fixture] } } });
  gateway = new Gateway(tg, { config, expose: 2, log: () => {} });
  await gateway.start();
}, 180_000);

afterAll(async () => {
  await gateway?.close();
  await tg?.close();
});

describe("tools/list_changed from an upstream", () => {
  it("adds a tool listed later, then marks it unavailable when it is removed, keeping its history", async () => {
    const session = gateway.createSession();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    const client = new Client({ name: "lc-agent", version: "1" });
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified++;
    });
    await client.connect(b);
    expect(await tool("changing.extra")).toBeUndefined();
    expect((await tool("changing.add_tool"))!.available).toBe(true);

    await client.callTool({ name: "call_tool", arguments: { name: "changing.add_tool" } });
    await waitFor("extra in the catalog", async () => (await tool("changing.extra"))?.available === true);
    const extra = (await tool("changing.extra"))!;
    expect(extra.description).toBe("Reverses a text given as input (added at run time)"); // \u0007 stripped
    expect(extra.server).toBe("changing");

    await client.callTool({ name: "search_tools", arguments: { intent: "reverse a text" } });
    await new Promise((r) => setImmediate(r));
    const reversed = await client.callTool({
      name: "call_tool",
      arguments: { name: "changing.extra", arguments: { text: "gateway" } },
    });
    expect(reversed.content).toEqual([{ type: "text", text: "yawetag" }]);
    // Exposed directly: the recommended upstream tools for the intent, announced with tools/list_changed.
    await waitFor("extra exposed", async () =>
      (await client.listTools()).tools.some((t) => t.name === "changing.extra"),
    );
    expect(notified).toBeGreaterThan(0);
    const direct = await client.callTool({ name: "changing.extra", arguments: { text: "abc" } });
    expect(direct.content).toEqual([{ type: "text", text: "cba" }]);

    await client.callTool({ name: "call_tool", arguments: { name: "changing.remove_tool" } });
    await waitFor("extra unavailable", async () => (await tool("changing.extra"))?.available === false);
    // Search skips it; its history stays.
    const found = (await tg.search({ intent: "reverse a text", limit: 10 })) as { results: { tool: string }[] };
    expect(found.results.map((r) => r.tool)).not.toContain("changing.extra");
    const named = (await tg.search({ intent: "changing.extra", limit: 10 })) as { results: { tool: string }[] };
    expect(named.results.map((r) => r.tool)).not.toContain("changing.extra");
    await client.close();
    await session.close();
    await gateway.flush();
    const steps = await engineOf(tg)
      .db.selectFrom("execution_steps")
      .select(["tool_id", "success"])
      .where("project", "=", "lc")
      .where("tool_id", "=", "changing.extra")
      .execute();
    expect(steps.length).toBe(2);
    expect((await tool("changing.extra"))!.available).toBe(false);
    // Listed again → available again.
    const s2 = gateway.createSession();
    const [c, d] = InMemoryTransport.createLinkedPair();
    await s2.server.connect(c);
    const client2 = new Client({ name: "lc-agent-2", version: "1" });
    await client2.connect(d);
    await client2.callTool({ name: "call_tool", arguments: { name: "changing.add_tool" } });
    await waitFor("extra available again", async () => (await tool("changing.extra"))?.available === true);
    await client2.close();
    await s2.close();
  });
});
