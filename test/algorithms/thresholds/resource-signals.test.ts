import { describe, expect, it } from "vitest";
import { ThresholdError } from "../../../algorithms/thresholds/errors.ts";
import { extractResourceSignals } from "../../../algorithms/thresholds/resource-signals.ts";

describe("extractResourceSignals", () => {
  it("resource_critical above 95% memory or cpu, not at exactly 95%", () => {
    expect(extractResourceSignals({ memory: 0.951, cpu: 0.1 }).signals).toEqual(["resource_critical"]);
    expect(extractResourceSignals({ memory: 0.1, cpu: 0.96 }).signals).toEqual(["resource_critical"]);
    expect(extractResourceSignals({ memory: 0.95, cpu: 0.1 }).signals).toEqual(["low_resources"]);
    expect(extractResourceSignals({ memory: 0.99, cpu: 0.99 }).recommendation).toBe("up");
  });

  it("low_resources above 85% memory or 90% cpu, not at exactly those", () => {
    expect(extractResourceSignals({ memory: 0.86, cpu: 0.1 }).signals).toEqual(["low_resources"]);
    expect(extractResourceSignals({ memory: 0.1, cpu: 0.91 }).signals).toEqual(["low_resources"]);
    expect(extractResourceSignals({ memory: 0.85, cpu: 0.9 }).signals).toEqual([]);
  });

  it("resource_healthy below 60% memory AND 70% cpu, not at exactly those", () => {
    const h = extractResourceSignals({ memory: 0.59, cpu: 0.69 });
    expect(h.signals).toEqual(["resource_healthy"]);
    expect(h.recommendation).toBe("down");
    expect(extractResourceSignals({ memory: 0.6, cpu: 0.1 }).signals).toEqual([]);
    expect(extractResourceSignals({ memory: 0.1, cpu: 0.7 }).signals).toEqual([]);
  });

  it("disk_pressure above 90% is a neutral warning", () => {
    const r = extractResourceSignals({ memory: 0.7, cpu: 0.8, disk: 0.91 });
    expect(r.signals).toEqual(["disk_pressure"]);
    expect(r.recommendation).toBe("neutral");
    expect(extractResourceSignals({ memory: 0.7, cpu: 0.8, disk: 0.9 }).signals).toEqual([]);
  });

  it("disk pressure listed after the memory/cpu signal", () => {
    expect(extractResourceSignals({ memory: 0.1, cpu: 0.1, disk: 0.95 }).signals).toEqual([
      "resource_healthy",
      "disk_pressure",
    ]);
  });

  it("unknown disk gives no disk signal and says so", () => {
    expect(extractResourceSignals({ memory: 0.7, cpu: 0.8 }).reasoning).toMatch(/disk n\/a/);
  });

  it("extremes 0 and 1", () => {
    expect(extractResourceSignals({ memory: 0, cpu: 0, disk: 0 }).signals).toEqual(["resource_healthy"]);
    expect(extractResourceSignals({ memory: 1, cpu: 1, disk: 1 }).signals).toEqual([
      "resource_critical",
      "disk_pressure",
    ]);
  });

  it("throws on a usage outside [0, 1]", () => {
    expect(() => extractResourceSignals({ memory: 1.2, cpu: 0 })).toThrow(ThresholdError);
    expect(() => extractResourceSignals({ memory: 0.2, cpu: Number.NaN })).toThrow(/cpu usage/);
  });
});
