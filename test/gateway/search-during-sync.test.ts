/**
 * Searches never wait for a catalog sync (catalog-sync.ts stages it: Toolgraph.staged). An upstream of 2,000
 * tools (fixtures/hostile-server.mjs) renames every tool; while the gateway's sync of the new list is in
 * progress — issued as it begins, and once its rows are written and readied — the SDK client's search_tools
 * answers from the catalog published before it. The sync's publication is held until both answers are in (a
 * search that waited for the sync would never answer, and the test would fail at its timeout); once it is
 * published, a search finds the renamed tools. Embedded database, hash embeddings.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const fixture = fileURLToPath(new URL("./fixtures/hostile-server.mjs", import.meta.url));

let tg: Toolgraph;
let gateway: Gateway;
let client: Client;

/** A promise and its resolver. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "during", embeddings: "hash:64" });
  const config = parseGatewayConfig({
    mcpServers: { hostile: { command: process.execPath, args: [fixture], env: { HOSTILE_TOOLS: "2000" } } },
  });
  gateway = new Gateway(tg, { config, log: () => {} });
  await gateway.start();
  const session = gateway.createSession();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await session.server.connect(a);
  client = new Client({ name: "during-sync", version: "1" });
  await client.connect(b);
}, 180_000);

afterAll(async () => {
  await gateway?.close();
  await tg?.close();
});

const search = async (intent: string): Promise<string[]> =>
  (
    (await client.callTool({ name: "search_tools", arguments: { intent, limit: 3 } })) as unknown as {
      structuredContent: { results: { tool: string }[] };
    }
  ).structuredContent.results.map((r) => r.tool);

describe("search_tools while a catalog sync is in progress", () => {
  it("answers from the published catalog, and finds the new tools once it is published", async () => {
    expect(await search("generation 0 tool number 7 converts quarterly widget reports")).toContain("hostile.g0_tool_7");
    const events: string[] = [];
    const began = signal();
    const readied = signal();
    const answered = signal();
    const published = signal();
    // Instruments the sync of the renamed list (the gateway calls tg.staged): it says when it begins and when its rows are written
    // and readied, and holds its publication until the searches below have answered.
    const staged = tg.staged.bind(tg);
    const renamed = () => [...gateway.upstreams.get("hostile")!.tools].some((t) => t.name.startsWith("g1_"));
    tg.staged = (write, opts) =>
      // Other staged writes (the sweep of retired tools) and syncs of the list before the rename pass through.
      !renamed()
        ? staged(write, opts)
        : staged(async () => {
            began.resolve();
            await write();
            events.push("readied");
            readied.resolve();
            await answered.promise;
          }, opts).then(() => {
            events.push("published");
            published.resolve();
          });
    try {
      await client.callTool({ name: "call_tool", arguments: { name: "hostile.rename" } });
      await began.promise;
      const early = search("generation 0 tool number 7 converts quarterly widget reports").then((r) => {
        events.push("early search");
        return r;
      });
      await readied.promise;
      const late = search("generation 1 tool number 7 converts quarterly widget reports").then((r) => {
        events.push("late search");
        return r;
      });
      const [e, l] = await Promise.all([early, late]);
      expect(events).not.toContain("published");
      answered.resolve();
      await published.promise;
      expect(events.indexOf("late search")).toBeGreaterThan(events.indexOf("readied"));
      expect(events.at(-1)).toBe("published");
      // The catalog before the rename: generation 0, no tool of generation 1.
      expect(e).toContain("hostile.g0_tool_7");
      expect(l.some((t) => t.startsWith("hostile.g1_"))).toBe(false);
      expect(l.some((t) => t.startsWith("hostile.g0_tool_"))).toBe(true);
      const after = await search("generation 1 tool number 7 converts quarterly widget reports");
      expect(after[0]).toBe("hostile.g1_tool_7");
      expect(after.some((t) => t.startsWith("hostile.g0_"))).toBe(false);
    } finally {
      tg.staged = staged;
      answered.resolve();
    }
  }, 180_000);
});
