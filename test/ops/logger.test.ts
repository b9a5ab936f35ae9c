import { describe, expect, it } from "vitest";
import { createLogger, parseLogFormat, parseLogLevel } from "../../src/ops/logger.ts";

const NOW = Date.parse("2026-11-24T10:00:00Z");

describe("structured logger", () => {
  it("JSON lines carry time, level, message and the child's fields; below the level nothing is written", () => {
    const lines: string[] = [];
    const log = createLogger({ format: "json", level: "info", write: (l) => lines.push(l), now: () => NOW });
    const child = log.child({ requestId: "r-1" });
    child.debug("hidden");
    child.info("request", { status: 200, ms: 1.5 });
    log.error("boom", { err: new Error("bad") });
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual({
      time: "2026-11-24T10:00:00.000Z",
      level: "info",
      msg: "request",
      requestId: "r-1",
      status: 200,
      ms: 1.5,
    });
    const e = JSON.parse(lines[1]!);
    expect(e).toMatchObject({ level: "error", msg: "boom", err: { name: "Error", message: "bad" } });
  });

  it("text lines: time, level, message, key=value (quoted when needed)", () => {
    const lines: string[] = [];
    const log = createLogger({ format: "text", level: "debug", write: (l) => lines.push(l), now: () => NOW });
    log.warn("slow request", { path: "/v1/search", note: "two words" });
    expect(lines).toEqual(['2026-11-24T10:00:00.000Z WARN  slow request path=/v1/search note="two words"']);
  });

  it("the default writes to stderr, never stdout", () => {
    const out = process.stdout.write;
    const err = process.stderr.write;
    const seen: string[] = [];
    process.stdout.write = ((s: string) => {
      seen.push(`out:${s}`);
      return true;
    }) as typeof process.stdout.write;
    process.stderr.write = ((s: string) => {
      seen.push(`err:${s}`);
      return true;
    }) as typeof process.stderr.write;
    try {
      createLogger({ format: "json", level: "info" }).info("hello");
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]!.startsWith("err:")).toBe(true);
  });

  it("bad level or format names the variable and the value", () => {
    expect(() => parseLogLevel("loud")).toThrow(
      'TOOLGRAPH_LOG_LEVEL: must be one of debug, info, warn, error (got "loud")',
    );
    expect(() => parseLogFormat("xml", "--log-format")).toThrow('--log-format: must be text or json (got "xml")');
    expect(parseLogLevel(" WARN ")).toBe("warn");
  });
});
