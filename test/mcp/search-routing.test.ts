/** The MCP door of two-hop routing: search_tools `routing`, its schema, summary line and validation. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createMcpServer } from "../../src/mcp/mcp-server.ts";

let tg: Toolgraph;
let client: Client;

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "demo", embeddings: "hash:256" });
  await tg.importCatalog(demoCatalog());
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createMcpServer(tg, {}).connect(a);
  client = new Client({ name: "test", version: "1" });
  await client.connect(b);
});
afterAll(async () => {
  await client?.close();
  await tg?.close();
});

const text = (r: any): string => r.content.map((x: any) => x.text).join("\n");

describe("search_tools routing", () => {
  it("the input schema offers routing", async () => {
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === "search_tools")!;
    expect((search.inputSchema.properties as any).routing.enum).toEqual(["flat", "two-hop", "auto"]);
    expect(search.description).toMatch(/routing/);
  });

  it("two-hop: the summary names the routed namespaces, the JSON carries them", async () => {
    const r: any = await client.callTool({
      name: "search_tools",
      arguments: { intent: "open a pull request on github", routing: "two-hop", limit: 3 },
    });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.routing.mode).toBe("two-hop");
    expect(r.structuredContent.routing.namespaces[0].namespace).toBe("github");
    expect(text(r).split("\n")[1]).toMatch(/^routed via namespaces github \(/);
    expect(r.structuredContent.results[0].tool).toBe("github.create_pull_request");
  });

  it("flat has no routing line", async () => {
    const r: any = await client.callTool({
      name: "search_tools",
      arguments: { intent: "open a pull request", routing: "flat", limit: 3 },
    });
    expect(r.structuredContent.routing.mode).toBe("flat");
    expect(text(r)).not.toMatch(/routed via/);
  });

  it("a bad routing value is an error naming the field", async () => {
    const r: any = await client.callTool({ name: "search_tools", arguments: { intent: "x", routing: "sideways" } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/routing/);
  });
});
