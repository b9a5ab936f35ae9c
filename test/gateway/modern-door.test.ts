/**
 * How the gateway groups stateless (2026-07-28) calls into executions (src/gateway/modern-door.ts): an
 * execution id first, then a valid W3C traceparent's trace id, then the caller; every key scoped by the
 * caller's token identity.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EXECUTION_META_KEY, executionGroup, traceId } from "../../src/gateway/modern-door.ts";

const caller = { identity: "", peer: "127.0.0.1" };
const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("traceId (W3C trace context level 1)", () => {
  it("takes the trace id of a valid traceparent and ignores invalid ones", () => {
    expect(traceId(TP)).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(traceId(` ${TP} `)).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(traceId("00-00000000000000000000000000000000-00f067aa0ba902b7-01")).toBeUndefined(); // all-zero trace id
    expect(traceId("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01")).toBeUndefined(); // all-zero parent id
    expect(traceId("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).toBeUndefined(); // version ff
    expect(traceId(TP.toUpperCase())).toBeUndefined(); // upper-case hex is invalid
    expect(traceId("00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01")).toBeUndefined(); // 31 digits
    expect(traceId(42)).toBeUndefined();
  });
});

describe("executionGroup", () => {
  it("prefers the execution id, then the trace, then the caller", () => {
    expect(executionGroup({ [EXECUTION_META_KEY]: "task-1", traceparent: TP }, "a", caller).by).toBe("execution");
    expect(executionGroup({ traceparent: TP }, "a", caller).by).toBe("trace");
    expect(executionGroup({ traceparent: "garbage" }, "a", caller)).toEqual(executionGroup(undefined, "a", caller));
    expect(executionGroup(undefined, "a", caller).by).toBe("client");
  });

  it("gives one trace one group whatever the client or address, and two clients two groups", () => {
    const a = executionGroup({ traceparent: TP }, "a", caller);
    const b = executionGroup({ traceparent: TP.replace(/-01$/, "-00") }, "b", { identity: "", peer: "10.0.0.2" });
    expect(a.key).toBe(b.key);
    expect(executionGroup(undefined, "a", caller).key).not.toBe(executionGroup(undefined, "b", caller).key);
    expect(executionGroup(undefined, "a", caller).key).not.toBe(
      executionGroup(undefined, "a", { identity: "", peer: "10.0.0.2" }).key,
    );
  });

  it("never puts two token identities in one group, whatever the kind and value", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.oneof(
          fc.constant(undefined),
          fc.record({ traceparent: fc.constant(TP) }),
          fc
            .string({ minLength: 1, maxLength: 200 })
            .map((s) => ({
              [EXECUTION_META_KEY]: [...s].map((c) => (c.charCodeAt(0) < 32 || c === "\x7f" ? "x" : c)).join(""),
            })),
        ),
        (i1, i2, meta) => {
          fc.pre(i1 !== i2);
          const k1 = executionGroup(meta, "c", { identity: i1, peer: "p" }).key;
          const k2 = executionGroup(meta, "c", { identity: i2, peer: "p" }).key;
          return k1 !== k2;
        },
      ),
    );
  });

  it("refuses a malformed execution id, naming the field", () => {
    for (const bad of ["", "x".repeat(201), "a\nb", 7, null]) {
      expect(() => executionGroup({ [EXECUTION_META_KEY]: bad }, "a", caller)).toThrow(
        /params\._meta\.toolgraph\/execution: must be a string of 1 to 200 printable characters/,
      );
    }
  });
});
