/**
 * The snapshot's CSR built in steps (GraphSnapshot.csrSteps, drained by the analytics refresh) against the
 * getter it stands in for: the same arrays, cached for the next read.
 */
import { describe, expect, it } from "vitest";
import type { EdgeRow, ToolRow } from "../../src/store/reads.ts";
import { GraphSnapshot } from "../../src/view/graph-snapshot.ts";

function tool(id: string): ToolRow {
  return {
    id,
    name: id,
    description: "",
    inputSchema: null,
    outputSchema: null,
    tags: [],
    examples: [],
    antiPatterns: [],
    costEstimate: null,
    avgLatencyMs: null,
    safetyTags: [],
    server: null,
    autoRegistered: false,
    available: true,
    textHash: "",
    addedAt: 0,
  };
}

function snapshot(): GraphSnapshot {
  const tools = Array.from({ length: 300 }, (_, i) => tool(`t${i}`));
  const edges: EdgeRow[] = [];
  for (let k = 0; k < 12_000; k++) {
    const from = (k * 7) % 300;
    const to = (k * 13 + Math.floor(k / 300)) % 300;
    if (from === to || edges.some((e) => e.from === `t${from}` && e.to === `t${to}`)) continue;
    edges.push({
      from: `t${from}`,
      to: `t${to}`,
      weight: k % 10 === 0 ? 0 : ((k % 97) + 1) / 98,
      type: "sequence",
      source: "observed",
      counts: { dependency: 0, contains: 0, provides: 0, sequence: 1 + (k % 5) },
      declared: { dependency: 0, contains: 0, provides: 0, sequence: 0 },
      successions: 1,
      firstSeen: null,
      lastSeen: null,
    });
  }
  return new GraphSnapshot({ project: "p", version: 1, tools, edges, stats: [], capabilities: [] });
}

describe("GraphSnapshot.csrSteps", () => {
  it("pauses over thousands of edges, builds what the csr getter builds, and caches it", () => {
    const [a, b] = [snapshot(), snapshot()];
    const steps = a.csrSteps();
    let yields = 0;
    let r = steps.next();
    while (!r.done) {
      yields++;
      r = steps.next();
    }
    expect(yields).toBeGreaterThan(2);
    expect(r.value).toEqual(b.csr);
    expect(r.value.m).toBeGreaterThan(5000);
    expect(a.csr).toBe(r.value);
  });
});
