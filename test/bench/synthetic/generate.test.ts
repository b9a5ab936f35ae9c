import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { generateSyntheticProject, SYNTHETIC_SIZES, zipfSampler } from "../../../bench/synthetic/generate.ts";

describe("generateSyntheticProject", () => {
  it("is deterministic for a seed", () => {
    const a = generateSyntheticProject({ tools: 1000, traces: 300, seed: 42 });
    const b = generateSyntheticProject({ tools: 1000, traces: 300, seed: 42 });
    expect(b).toEqual(a);
  });

  it("another seed gives another project", () => {
    const a = generateSyntheticProject({ tools: 200, traces: 50, seed: 1 });
    const b = generateSyntheticProject({ tools: 200, traces: 50, seed: 2 });
    expect(b.catalog.tools.map((t) => t.id)).not.toEqual(a.catalog.tools.map((t) => t.id));
  });

  it.each(SYNTHETIC_SIZES)("%i tools: requested sizes, distinct ids and descriptions, valid capabilities", (n) => {
    const p = generateSyntheticProject({ tools: n, traces: 200 });
    expect(p.catalog.tools).toHaveLength(n);
    expect(new Set(p.catalog.tools.map((t) => t.id)).size).toBe(n);
    expect(new Set(p.catalog.tools.map((t) => t.description)).size).toBe(n);
    expect(p.catalog.capabilities).toHaveLength(n / 5);
    expect(p.traces).toHaveLength(200);
    expect(p.meta.servers).toBe(n / 25);
    const ids = new Set(p.catalog.tools.map((t) => t.id));
    // Collect violations and assert once (tens of thousands of expect calls are slow).
    const bad: string[] = [];
    p.catalog.capabilities.forEach((c, i) => {
      if (c.tools.length < 3 || c.tools.length > 8) bad.push(`${c.id} size ${c.tools.length}`);
      if (new Set(c.tools).size !== c.tools.length) bad.push(`${c.id} repeats a tool`);
      for (const t of c.tools) if (!ids.has(t)) bad.push(`${c.id} unknown tool ${t}`);
      for (const d of c.dependsOn ?? []) if (!(Number(d.split(":")[1]) < i)) bad.push(`${c.id} depends on later ${d}`);
    });
    for (const e of p.edges) if (!ids.has(e.from) || !ids.has(e.to)) bad.push(`edge ${e.from} -> ${e.to}`);
    expect(bad).toEqual([]);
    expect(p.catalog.capabilities.some((c) => c.dependsOn !== undefined)).toBe(true);
  });

  it("traces: steps refer to catalog tools, parents and dependencies point backwards, failures stop the run", () => {
    const p = generateSyntheticProject({ tools: 1000, seed: 5 });
    expect(p.traces).toHaveLength(2000); // default 2 × tools
    const ids = new Set(p.catalog.tools.map((t) => t.id));
    const caps = new Set(p.catalog.capabilities.map((c) => c.id));
    let withParent = 0;
    let withDeps = 0;
    for (const t of p.traces) {
      expect(caps.has(t.capability!)).toBe(true);
      expect(t.steps.length).toBeGreaterThan(0);
      t.steps.forEach((s, k) => {
        expect(ids.has(s.tool)).toBe(true);
        if (s.parent !== undefined) {
          expect(s.parent).toBeLessThan(k);
          withParent++;
        }
        for (const d of s.dependsOn ?? []) expect(d).toBeLessThan(k);
        if (s.dependsOn) withDeps++;
        expect(Date.parse(s.at!)).toBeGreaterThanOrEqual(Date.parse(t.startedAt));
      });
      const failed = t.steps.filter((s) => !s.success);
      if (t.success) expect(failed).toEqual([]);
      else expect(failed).toEqual([t.steps[t.steps.length - 1]]);
    }
    expect(withParent).toBeGreaterThan(0);
    expect(withDeps).toBeGreaterThan(0);
    expect(p.traces.some((t) => !t.success)).toBe(true);
  });

  it("capability usage is heavy-tailed (Zipf): the top 10 of 200 capabilities carry over a third of the traces", () => {
    // Zipf s = 1.07 over 200 ranks: top-10 mass = Σ_{r≤10} r^-1.07 / Σ_{r≤200} r^-1.07 ≈ 2.75 / 5.3 ≈ 0.52
    const p = generateSyntheticProject({ tools: 1000, seed: 9 });
    const counts = new Map<string, number>();
    for (const t of p.traces) counts.set(t.capability!, (counts.get(t.capability!) ?? 0) + 1);
    const top = [...counts.values()].sort((a, b) => b - a).slice(0, 10);
    expect(top.reduce((s, c) => s + c, 0) / p.traces.length).toBeGreaterThan(0.35);
  });

  it("zero traces is allowed", () => {
    expect(generateSyntheticProject({ tools: 50, traces: 0 }).traces).toEqual([]);
  });

  it("rejects bad options", () => {
    expect(() => generateSyntheticProject({ tools: 3 })).toThrow(expect.objectContaining({ code: "bad-tools" }));
    expect(() => generateSyntheticProject({ tools: 100, traces: -1 })).toThrow(
      expect.objectContaining({ code: "bad-traces" }),
    );
    expect(() => generateSyntheticProject({ tools: 100, noise: 2 })).toThrow(
      expect.objectContaining({ code: "bad-share" }),
    );
  });
});

describe("zipfSampler", () => {
  it("rank-1 item is drawn about 1/H(n, s) of the time", () => {
    // n = 3, s = 1: weights 1, 1/2, 1/3 → P(rank 1) = 1 / (11/6) = 0.5454
    const rng = mulberry32(11);
    const draw = zipfSampler(3, 1, rng);
    const counts = [0, 0, 0];
    for (let i = 0; i < 20000; i++) counts[draw()]!++;
    expect(Math.max(...counts) / 20000).toBeCloseTo(6 / 11, 1);
  });
});
