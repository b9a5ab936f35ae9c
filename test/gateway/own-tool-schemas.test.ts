/**
 * The gateway's own tools' JSON Schemas come from a data file (src/gateway/own-tool-schemas.json): it must be
 * exactly zod's toJSONSchema of the tools' schemas, so tools/list serves the bytes it served when computing them.
 * After a schema change: `npx vitest run test/gateway/own-tool-schemas.test.ts -u` rewrites the file.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { callToolArgs, computeOwnToolSchemas, ownTools } from "../../src/gateway/own-tools.ts";
import { MCP_TOOLS } from "../../src/mcp/mcp-server.ts";

describe("own tool schemas", () => {
  it("the written file is toJSONSchema's output (rewritten with -u)", async () => {
    await expect(`${JSON.stringify(computeOwnToolSchemas(), null, 2)}\n`).toMatchFileSnapshot(
      "../../src/gateway/own-tool-schemas.json",
    );
  });

  it("tools/list serves, byte for byte, the schemas zod computes for each tool", () => {
    const served = ownTools();
    for (const spec of MCP_TOOLS) {
      const tool = served.find((t) => t.name === spec.name)!;
      expect(JSON.stringify(tool.inputSchema)).toBe(
        JSON.stringify(z.toJSONSchema(spec.inputSchema, { io: "input", target: "draft-7" })),
      );
      expect(JSON.stringify(tool.outputSchema)).toBe(
        JSON.stringify(z.toJSONSchema(spec.outputSchema, { io: "output", target: "draft-7" })),
      );
    }
    const call = served.find((t) => t.name === "call_tool")!;
    expect(JSON.stringify(call.inputSchema)).toBe(
      JSON.stringify(z.toJSONSchema(callToolArgs, { io: "input", target: "draft-7" })),
    );
    expect(JSON.stringify(served)).toBe(JSON.stringify(ownTools(computeOwnToolSchemas())));
    // every tool of the table, record_execution, call_tool and gateway_status
    expect(served.map((t) => t.name)).toEqual([...MCP_TOOLS.map((s) => s.name), "call_tool", "gateway_status"]);
  });

  it("a tool missing from the file gets its schemas computed", () => {
    const { search_tools: _, ...partial } = computeOwnToolSchemas();
    const served = ownTools(partial);
    const search = served.find((t) => t.name === "search_tools")!;
    expect(search.inputSchema).toEqual(
      z.toJSONSchema(MCP_TOOLS.find((s) => s.name === "search_tools")!.inputSchema, {
        io: "input",
        target: "draft-7",
      }),
    );
    expect(JSON.stringify(served)).toBe(JSON.stringify(ownTools()));
  });
});
