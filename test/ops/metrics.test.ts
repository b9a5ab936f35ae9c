import { describe, expect, it } from "vitest";
import { Counter, Histogram, MetricsRegistry } from "../../src/ops/metrics.ts";
import { parseExposition } from "../helpers/prometheus.ts";

describe("metrics registry", () => {
  it("a histogram's buckets are cumulative, +Inf equals the count, sum adds up (by hand)", async () => {
    const r = new MetricsRegistry();
    const h = r.histogram("x_seconds", "x", [0.1, 1]);
    for (const v of [0.05, 0.1, 0.5, 3]) h.observe({ job: "a" }, v);
    const p = parseExposition(await r.render());
    expect(p.types.get("x_seconds")).toBe("histogram");
    const get = (name: string, le?: string) =>
      p.samples.find((s) => s.name === name && (le === undefined || s.labels.le === le))!.value;
    expect(get("x_seconds_bucket", "0.1")).toBe(2); // 0.05 and 0.1 (le is inclusive)
    expect(get("x_seconds_bucket", "1")).toBe(3);
    expect(get("x_seconds_bucket", "+Inf")).toBe(4);
    expect(get("x_seconds_count")).toBe(4);
    expect(get("x_seconds_sum")).toBeCloseTo(3.65, 12);
  });

  it("labels are escaped and parse back to the original values; counters only go up", async () => {
    const r = new MetricsRegistry();
    const c = r.counter("y_total", "y");
    const weird = 'a"b\\c\nd';
    c.inc({ job: weird });
    c.inc({ job: weird }, 2);
    const p = parseExposition(await r.render());
    expect(p.samples).toEqual([{ name: "y_total", labels: { job: weird }, value: 3 }]);
    expect(() => c.inc({}, -1)).toThrow(/only goes up/);
    expect(() => new Histogram("h", "h", [1, 1])).toThrow(/increase/);
    expect(new Counter("z", "z").get()).toBe(0);
  });

  it("a failing collector is skipped without failing the scrape", async () => {
    const r = new MetricsRegistry();
    r.collect({ name: "bad", help: "b", type: "gauge", collect: () => Promise.reject(new Error("no")) });
    r.collect({ name: "good", help: "g", type: "gauge", collect: () => [{ labels: { a: "1" }, value: 2 }] });
    const p = parseExposition(await r.render());
    expect(p.samples).toEqual([{ name: "good", labels: { a: "1" }, value: 2 }]);
  });
});
