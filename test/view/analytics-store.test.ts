/**
 * Analytics kept in the data directory (src/view/analytics-store.ts): the next open of the same graph reads
 * them instead of computing (the stored run's own timings come back, which a new computation would not
 * reproduce), with the same numbers; another graph (a tool added) is computed and stored anew; a stored value
 * of another shape is never used.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serialize } from "node:v8";
import { afterAll, describe, expect, it } from "vitest";
import { engineOf, openToolgraph } from "../../src/library/toolgraph.ts";
import { analyticsJob } from "../../src/view/analytics.ts";
import { analyticsKey, readAnalytics } from "../../src/view/analytics-store.ts";

const home = mkdtempSync(join(tmpdir(), "tg-analytics-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const open = () => openToolgraph({ home, project: "a", embeddings: "hash:64", recommendationLog: { enabled: false } });
const TOOLS = ["git.status", "git.diff", "git.commit", "git.push", "ci.run"].map((id) => ({
  id,
  description: `Tool ${id}`,
}));
const trace = (i: number) => ({
  id: `t${i}`,
  intent: "ship it",
  startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
  success: true,
  steps: [
    { tool: "git.status" },
    { tool: "git.diff" },
    { tool: "git.commit" },
    { tool: i % 2 ? "git.push" : "ci.run" },
  ],
});

describe("analytics kept for the next process", () => {
  it("are read back by the next open of the same graph, computed anew for another graph", async () => {
    const writer = await open();
    await writer.importCatalog({ tools: TOOLS });
    await writer.importTraces(Array.from({ length: 12 }, (_, i) => trace(i)));
    await writer.close();

    const first = await open();
    const a1 = engineOf(first).analyticsCache.get(await engineOf(first).snapshot("a")).analytics;
    await first.close();
    expect(readdirSync(join(home, "toolgraph-cache", "analytics"))).toHaveLength(1);

    const second = await open();
    const s2 = await engineOf(second).snapshot("a");
    const a2 = engineOf(second).analyticsCache.get(s2).analytics;
    expect(a2.timingsMs).toEqual(a1.timingsMs); // the stored run's, not a new one's
    expect(serialize({ ...a2, computedAt: 0 })).toEqual(serialize({ ...a1, computedAt: 0 }));
    expect(a2.version).toBe(s2.version);
    await second.importCatalog({ tools: [...TOOLS, { id: "ci.deploy", description: "Deploy the build" }] });
    await second.close();

    const third = await open();
    const a3 = engineOf(third).analyticsCache.get(await engineOf(third).snapshot("a")).analytics;
    await third.close();
    expect(a3.pagerank).toHaveLength(6);
    expect(readdirSync(join(home, "toolgraph-cache", "analytics"))).toHaveLength(2);
  });

  it("never answers with a stored value of another shape, or with bytes that do not decode", async () => {
    const tg = await open();
    const s = await engineOf(tg).snapshot("a");
    await tg.close();
    const job = analyticsJob(s);
    const key = analyticsKey(job, 1, 0.5);
    const wrong = { pagerank: new Float64Array(2), hyperCapabilities: new Float64Array(0) };
    expect(readAnalytics({ read: () => serialize(wrong), write: () => {} }, key, job, 0)).toBeUndefined();
    expect(readAnalytics({ read: () => Uint8Array.from([1, 2, 3]), write: () => {} }, key, job, 0)).toBeUndefined();
    expect(analyticsKey(job, 2, 0.5)).not.toBe(key);
  });
});
