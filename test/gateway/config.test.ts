/** The gateway config (mcpServers shape): accepted shapes and errors that name the field. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadGatewayConfig, parseGatewayConfig } from "../../src/gateway/config.ts";

const err = (v: unknown): string => {
  try {
    parseGatewayConfig(v, "mcp.json");
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected an error");
};

describe("parseGatewayConfig", () => {
  it("reads stdio and remote servers with their defaults, skipping disabled ones", () => {
    const c = parseGatewayConfig({
      mcpServers: {
        fs: { command: "npx", args: ["-y", "server-filesystem", "/data"], env: { K: "v" } },
        remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer x" } },
        off: { command: "x", disabled: true },
        bare: { command: "node" },
      },
      otherClientSetting: true,
    });
    expect([...c.servers.keys()]).toEqual(["fs", "remote", "bare"]);
    expect(c.servers.get("fs")).toEqual({
      kind: "stdio",
      command: "npx",
      args: ["-y", "server-filesystem", "/data"],
      env: { K: "v" },
    });
    expect(c.servers.get("remote")).toEqual({
      kind: "remote",
      url: "https://example.com/mcp",
      headers: { Authorization: "Bearer x" },
    });
    expect(c.servers.get("bare")).toEqual({ kind: "stdio", command: "node", args: [], env: {} });
  });

  it("names the field of each problem", () => {
    expect(err([])).toBe("mcp.json: (file): must be a JSON object with an mcpServers object");
    expect(err({})).toMatch(/^mcp\.json: mcpServers: is required/);
    expect(err({ mcpServers: [] })).toBe("mcp.json: mcpServers: must be an object of server name → server");
    expect(err({ mcpServers: {} })).toBe("mcp.json: mcpServers: names no (enabled) server");
    expect(err({ mcpServers: { "a.b": { command: "x" } } })).toMatch(
      /^mcp\.json: mcpServers\.a\.b: server name must be 1-64 letters/,
    );
    expect(err({ mcpServers: { fs: { args: [] } } })).toMatch(
      /^mcp\.json: mcpServers\.fs: needs command \(a stdio server\) or url/,
    );
    expect(err({ mcpServers: { fs: { command: "x", url: "http://a" } } })).toMatch(
      /^mcp\.json: mcpServers\.fs: has both command and url/,
    );
    expect(err({ mcpServers: { fs: { command: "" } } })).toBe("mcp.json: mcpServers.fs.command: must not be empty");
    expect(err({ mcpServers: { fs: { command: "x", args: ["a", 2] } } })).toMatch(
      /^mcp\.json: mcpServers\.fs\.args\[1\]: /,
    );
    expect(err({ mcpServers: { fs: { command: "x", env: { K: 1 } } } })).toMatch(
      /^mcp\.json: mcpServers\.fs\.env\.K: /,
    );
    expect(err({ mcpServers: { r: { url: "not a url" } } })).toBe(
      "mcp.json: mcpServers.r.url: must be an absolute URL",
    );
    expect(err({ mcpServers: { r: { url: "ftp://x/y" } } })).toBe(
      "mcp.json: mcpServers.r.url: must be an http or https URL",
    );
    expect(err({ mcpServers: { r: { url: "http://x", headers: { a: 1 } } } })).toMatch(
      /^mcp\.json: mcpServers\.r\.headers\.a: /,
    );
    expect(err({ mcpServers: { r: { url: "http://x", extra: 1 } } })).toMatch(
      /^mcp\.json: mcpServers\.r\.extra: unknown field/,
    );
    expect(err({ mcpServers: { fs: { command: "x", timeoutMs: -1 } } })).toMatch(
      /^mcp\.json: mcpServers\.fs\.timeoutMs: /,
    );
  });

  it("loadGatewayConfig names the file for unreadable and malformed files", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tg-gwcfg-"));
    try {
      await expect(loadGatewayConfig(join(dir, "none.json"))).rejects.toThrow(
        /none\.json: cannot read the gateway config/,
      );
      await writeFile(join(dir, "bad.json"), "{ nope");
      await expect(loadGatewayConfig(join(dir, "bad.json"))).rejects.toThrow(/bad\.json: \(file\): malformed JSON/);
      await writeFile(join(dir, "ok.json"), JSON.stringify({ mcpServers: { a: { command: "node" } } }));
      expect([...(await loadGatewayConfig(join(dir, "ok.json"))).servers.keys()]).toEqual(["a"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
