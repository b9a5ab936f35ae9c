/**
 * Trust controls of the gateway against a hostile upstream (fixtures/trust-server.mjs, over stdio, driven by
 * the SDK client): display-safe texts, the `suspicious` tag, pinning with quarantine and approval, and the
 * policy. Embedded database in memory, hash embeddings.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../algorithms/safety/tool-policy.ts";
import { main } from "../../src/cli/main.ts";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { PinStore } from "../../src/gateway/trust.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const fixture = join(process.cwd(), "test/gateway/fixtures/trust-server.mjs");
const FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/u;

let dir: string;
let tg: Toolgraph;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tg-trust-"));
  tg = await openToolgraph({ home: "memory://", database: "", project: "trust", embeddings: "hash:256" });
}, 120_000);
afterAll(async () => {
  await tg?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function agent(g: Gateway): Promise<Client> {
  const session = g.createSession({ user: "ana" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await session.server.connect(a);
  const client = new Client({ name: "trust-test", version: "1" });
  await client.connect(b);
  return client;
}

const call = (c: Client, name: string, args: Record<string, unknown>) =>
  c.callTool({ name, arguments: args }) as Promise<{
    isError?: boolean;
    content: { text: string }[];
    structuredContent?: any;
  }>;

async function until(what: string, f: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const catalog = async (project: string) => (await engineOf(tg).snapshot(project)).tools;

describe("the policy", () => {
  it("denies by tag, by glob and by the absence of an allow rule (worked by hand)", () => {
    const p = compilePolicy({ allow: [{ server: "fs" }, { tool: "gh.get_*" }], deny: [{ tag: "destructive" }] });
    expect(p.denies({ id: "fs.read_file", server: "fs", safetyTags: [] })).toBeUndefined();
    expect(p.denies({ id: "fs.delete_file", server: "fs", safetyTags: ["destructive"] })).toMatch(
      /deny rule: tag "destructive"/,
    );
    expect(p.denies({ id: "gh.get_issue", server: "gh", safetyTags: [] })).toBeUndefined();
    expect(p.denies({ id: "gh.merge", server: "gh", safetyTags: [] })).toMatch(/no allow rule/);
    expect(compilePolicy(undefined).denies({ id: "x.y", server: "x", safetyTags: ["destructive"] })).toBeUndefined();
  });

  it("rejects a config rule naming an unknown server or no field, naming the field", () => {
    const servers = { a: { command: "x" } };
    expect(() => parseGatewayConfig({ mcpServers: servers, policy: { deny: [{ server: "b" }] } })).toThrow(
      /policy: a rule names server "b"/,
    );
    expect(() => parseGatewayConfig({ mcpServers: servers, policy: { deny: [{}] } })).toThrow(/policy\.deny\[0\]/);
  });
});

describe("pins", () => {
  it("pin on first sight, quarantine a change, approve it, auto-approve where allowed", () => {
    const file = join(dir, "pins.json");
    const store = new PinStore(file);
    const tool = (d: string) => ({ name: "t", description: d, inputSchema: { type: "object" as const } });
    expect(store.check([{ id: "s.t", tool: tool("one") }], { autoApprove: false, now: "T0" }).get("s.t")).toEqual({
      state: "new",
    });
    expect(store.check([{ id: "s.t", tool: tool("one") }], { autoApprove: false, now: "T1" }).get("s.t")).toEqual({
      state: "pinned",
    });
    const v = store.check([{ id: "s.t", tool: tool("two") }], { autoApprove: false, now: "T2" }).get("s.t")!;
    expect(v.state).toBe("quarantined");
    // Another process sees the pending change in the file and approves it.
    const other = new PinStore(file);
    expect(other.quarantined()).toEqual([{ tool: "s.t", since: "T2", firstSeen: "T0" }]);
    expect(other.approve(["s.*"], "T3")).toEqual(["s.t"]);
    expect(store.check([{ id: "s.t", tool: tool("two") }], { autoApprove: false, now: "T4" }).get("s.t")).toEqual({
      state: "pinned",
    });
    expect(store.get("s.t")!.description).toBe("two");
    expect(store.check([{ id: "s.t", tool: tool("three") }], { autoApprove: true, now: "T5" }).get("s.t")).toEqual({
      state: "approved-change",
    });
  });
});

describe("pins checked in slices", () => {
  it("give the verdicts of check and write the same file, byte for byte", async () => {
    const tool = (d: string, extra: object = {}) => ({
      name: "t",
      description: d,
      inputSchema: { type: "object" as const },
      ...extra,
    });
    const list = (g: string) =>
      Array.from({ length: 40 }, (_, i) => ({
        id: `s.t${i}`,
        tool: tool(i % 3 === 0 ? `${g} "quoted"\nline ${i}` : `tool ${i}`, i % 5 === 0 ? { title: "T ✓" } : {}),
      }));
    const a = new PinStore(join(dir, "pins-sync.json"));
    const b = new PinStore(join(dir, "pins-slices.json"));
    for (const [g, autoApprove] of [
      ["one", false],
      ["two", false],
      ["three", true],
    ] as const) {
      const va = a.check(list(g), { autoApprove, now: `T-${g}` });
      const vb = await b.checkInSlices(list(g), { autoApprove, now: `T-${g}` });
      expect([...vb]).toEqual([...va]);
      expect(readFileSync(join(dir, "pins-slices.json"), "utf8")).toBe(
        readFileSync(join(dir, "pins-sync.json"), "utf8"),
      );
    }
    // And a store reading the file written in slices sees the same pins.
    expect(new PinStore(join(dir, "pins-slices.json")).quarantined()).toEqual(a.quarantined());
  });
});

describe("toolgraph gateway approve", () => {
  it("accepts the pending version of a quarantined tool in the data directory's pin file", async () => {
    const home = join(dir, "home-approve");
    const store = new PinStore(join(home, "gateway-pins.json"));
    const tool = (d: string) => ({ name: "t", description: d, inputSchema: { type: "object" as const } });
    mkdirSync(home, { recursive: true });
    store.check([{ id: "s.t", tool: tool("one") }], { autoApprove: false, now: "T0" });
    store.check([{ id: "s.t", tool: tool("two") }], { autoApprove: false, now: "T1" });
    const run = async (...argv: string[]) => {
      let out = "";
      let err = "";
      const code = await main(["gateway", "approve", ...argv, "--home", home], {
        out: (x) => (out += x),
        err: (x) => (err += x),
      });
      return { code, out, err };
    };
    expect(await run("x.*")).toMatchObject({
      code: 1,
      err: expect.stringContaining("no quarantined tool matches x.* (quarantined: s.t)"),
    });
    expect(await run("s.t")).toMatchObject({ code: 0, out: expect.stringContaining("approved: s.t") });
    const pin = new PinStore(join(home, "gateway-pins.json")).get("s.t")!;
    expect(pin.description).toBe("two");
    expect(pin.pending).toBeUndefined();
  });
});

describe("the gateway in front of a hostile upstream", () => {
  it("shows display-safe texts, tags the steering description, quarantines a rug pull until approved", {
    timeout: 120_000,
  }, async () => {
    const config = parseGatewayConfig({ mcpServers: { trust: { command: process.execPath, args: [fixture] } } });
    const g = new Gateway(tg, { config, project: "trust", pinFile: join(dir, "gw-pins.json"), log: () => {} });
    await g.start();
    try {
      const tools = await catalog("trust");
      const ansi = tools.find((t) => t.id === "trust.ansi")!;
      expect(FORBIDDEN.test(ansi.description) || FORBIDDEN.test(ansi.name)).toBe(false);
      expect(ansi.description).toBe("Prints [31mred[0m text with hidden\nparts");
      expect(tools.find((t) => t.id === "trust.deploy")!.safetyTags.sort()).toEqual([
        "destructive",
        "network",
        "suspicious",
      ]);
      expect(tools.find((t) => t.id === "trust.status")!.safetyTags).toEqual([]);

      const c = await agent(g);
      // The steering tool may rank first for its purpose, but it is never accepted outright, and says why.
      const deploy = (
        await call(c, "search_tools", { intent: "deploy the application to production", limit: 5 })
      ).structuredContent.results.find((r: { tool: string }) => r.tool === "trust.deploy");
      expect(deploy.safetyTags.sort()).toEqual(["destructive", "network", "suspicious"]);
      expect(deploy.gate.decision).not.toBe("accepted");
      if (deploy.gate.decision === "accepted-with-caution" && deploy.gate.reason)
        expect(deploy.gate.reason).toMatch(/suspicious/);
      expect((await call(c, "call_tool", { name: "trust.rug", arguments: { text: "a b" } })).isError ?? false).toBe(
        false,
      );
      await call(c, "call_tool", { name: "trust.mutate", arguments: {} });
      await until("the rug to be quarantined", () => g.quarantined().some((q) => q.tool === "trust.rug"));
      const refused = await call(c, "call_tool", { name: "trust.rug", arguments: { text: "a b" } });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toMatch(
        /tool-refused: call_tool: trust\.rug is quarantined: .*toolgraph gateway approve trust\.rug/,
      );
      await until(
        "the rug to leave the catalog",
        async () => !(await catalog("trust")).some((t) => t.id === "trust.rug" && t.available),
      );
      const found = await call(c, "search_tools", { intent: "count the words of a text", limit: 10 });
      expect(found.structuredContent.results.map((r: { tool: string }) => r.tool)).not.toContain("trust.rug");
      const status = await call(c, "gateway_status", {});
      expect(status.content[0]!.text).toContain("quarantined: trust.rug");

      // Approved from another process, as `toolgraph gateway approve trust.rug` does.
      expect(new PinStore(join(dir, "gw-pins.json")).approve(["trust.rug"], new Date().toISOString())).toEqual([
        "trust.rug",
      ]);
      expect((await call(c, "call_tool", { name: "trust.rug", arguments: { text: "a b" } })).isError ?? false).toBe(
        false,
      );
      await until("the rug to come back", async () =>
        (await catalog("trust")).some((t) => t.id === "trust.rug" && t.available),
      );
      expect((await catalog("trust")).find((t) => t.id === "trust.rug")!.safetyTags).toEqual(["suspicious"]);
    } finally {
      await g.close();
    }
  });

  it("a denied tool is never in the catalog and call_tool refuses it", { timeout: 120_000 }, async () => {
    const config = parseGatewayConfig({
      mcpServers: { trust: { command: process.execPath, args: [fixture] } },
      policy: { deny: [{ tag: "destructive" }, { tool: "trust.ans?" }] },
    });
    const g = new Gateway(tg, { config, project: "trust-policy", log: () => {} });
    await g.start();
    try {
      const ids = (await catalog("trust-policy")).map((t) => t.id).sort();
      expect(ids).toEqual(["trust.mutate", "trust.rug", "trust.status"]);
      const c = await agent(g);
      const r = await call(c, "call_tool", { name: "trust.deploy", arguments: {} });
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toContain('denied by the gateway policy (deny rule: tag "destructive")');
      const plan = await call(c, "plan_workflow", { intent: "deploy the application to production" });
      expect(JSON.stringify(plan.structuredContent ?? {})).not.toContain("trust.deploy");
    } finally {
      await g.close();
    }
  });
});
