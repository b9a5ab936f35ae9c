import { describe, expect, it } from "vitest";
import { ThresholdError } from "../../algorithms/thresholds/errors.ts";
import { ResourceMonitor, readResources } from "../../src/gate/resource-monitor.ts";

describe("readResources (real process and system)", () => {
  it("returns usages in [0, 1] and process numbers", () => {
    const r = readResources(process.cwd(), 123);
    expect(r.memory).toBeGreaterThanOrEqual(0);
    expect(r.memory).toBeLessThanOrEqual(1);
    expect(r.cpu).toBeGreaterThanOrEqual(0);
    expect(r.cpu).toBeLessThanOrEqual(1);
    expect(r.disk).toBeGreaterThanOrEqual(0);
    expect(r.disk).toBeLessThanOrEqual(1);
    expect(r.cpuCount).toBeGreaterThanOrEqual(1);
    expect(r.processRssBytes).toBeGreaterThan(0);
    expect(r.heapUsedBytes).toBeGreaterThan(0);
    expect(r.sampledAt).toBe(123);
  });

  it("an unreadable disk path gives disk undefined, not an exception", () => {
    expect(readResources("/definitely/not/here", 0).disk).toBeUndefined();
  });
});

describe("ResourceMonitor", () => {
  it("samples at most once per interval with the injected clock", () => {
    let t = 1000;
    const m = new ResourceMonitor({ now: () => t, sampleIntervalMs: 1000 });
    const a = m.snapshot();
    t = 1999;
    expect(m.snapshot()).toBe(a);
    expect(m.samples).toBe(1);
    t = 2000;
    const b = m.snapshot();
    expect(b).not.toBe(a);
    expect(b.sampledAt).toBe(2000);
    expect(m.samples).toBe(2);
  });

  it("a clock that goes backwards forces a new reading", () => {
    let t = 5000;
    const m = new ResourceMonitor({ now: () => t });
    m.snapshot();
    t = 4000;
    expect(m.snapshot().sampledAt).toBe(4000);
  });

  it("refresh reads regardless of the interval", () => {
    const m = new ResourceMonitor({ now: () => 0 });
    m.snapshot();
    m.refresh();
    expect(m.samples).toBe(2);
  });

  it("throws on a negative interval", () => {
    expect(() => new ResourceMonitor({ sampleIntervalMs: -1 })).toThrow(ThresholdError);
  });
});
