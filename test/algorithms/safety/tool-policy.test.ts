import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../algorithms/safety/tool-policy.ts";

const tool = (id: string, safetyTags: string[] = []) => ({ id, server: id.split(".")[0]!, safetyTags });

describe("compilePolicy", () => {
  it("an empty policy denies nothing", () => {
    const p = compilePolicy(undefined);
    expect(p.empty).toBe(true);
    expect(p.denies(tool("fs.rm", ["destructive"]))).toBeUndefined();
  });

  it("a deny rule wins; with allow rules, a tool no allow rule matches is denied", () => {
    const p = compilePolicy({ allow: [{ server: "fs" }], deny: [{ tag: "DESTRUCTIVE" }, { tool: "fs.secret_*" }] });
    expect(p.empty).toBe(false);
    expect(p.denies(tool("fs.read"))).toBeUndefined();
    expect(p.denies(tool("fs.rm", ["destructive"]))).toBe(
      'denied by the gateway policy (deny rule: tag "DESTRUCTIVE")',
    );
    expect(p.denies(tool("fs.secret_key"))).toBe('denied by the gateway policy (deny rule: tool "fs.secret_*")');
    expect(p.denies(tool("web.fetch"))).toBe("denied by the gateway policy (no allow rule matches it)");
  });

  it("a rule matches only when every field it gives matches", () => {
    const p = compilePolicy({ deny: [{ server: "fs", tag: "network" }] });
    expect(p.denies(tool("fs.sync", ["network"]))).toBeDefined();
    expect(p.denies(tool("fs.read"))).toBeUndefined();
    expect(p.denies(tool("web.get", ["network"]))).toBeUndefined();
  });
});
