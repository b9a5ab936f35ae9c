/**
 * listedTools (upstream.ts): the gateway reads a tools/list page itself, a tool at a time, instead of the SDK's
 * schema (one synchronous parse of the whole page, which refuses the page for one bad tool): a tool without a
 * string name or with an input schema that is not an object is left out and counted, the others kept in order.
 */
import { describe, expect, it } from "vitest";
import { listedTools } from "../../src/gateway/upstream-tools.ts";

const ok = (name: string) => ({ name, description: `tool ${name}`, inputSchema: { type: "object" } });

describe("listedTools", () => {
  it("keeps the well-formed tools in order and counts the others", async () => {
    const page = [
      ok("a"),
      { description: "no name", inputSchema: { type: "object" } },
      ok("b"),
      { name: "", inputSchema: { type: "object" } },
      { name: "c", inputSchema: [] },
      { name: "d" },
      null,
      "tool",
      ok("e"),
    ];
    const r = await listedTools(page);
    expect(r.tools.map((t) => t.name)).toEqual(["a", "b", "e"]);
    expect(r.dropped).toBe(6);
    // The tools are handed on as the server sent them (no field added or stripped).
    expect(r.tools[0]).toBe(page[0]);
  });

  it("reads 3,000 tools in slices and keeps them all", async () => {
    const page = Array.from({ length: 3000 }, (_, i) => ok(`t${i}`));
    const r = await listedTools(page);
    expect(r.tools).toHaveLength(3000);
    expect(r.dropped).toBe(0);
  });
});
