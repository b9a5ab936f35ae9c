/**
 * The default DAG graph falls back to the history graph for tools the dependency graph knows nothing about
 * (docs/decisions/dag-default.md): on the demo project with the research traces recorded without `dependsOn`,
 * the default orders web.search → web.summarize_page → docs.create_page as observed; an explicit
 * `graph: "dependency"` keeps its own answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDagRequest } from "../../src/contract/requests.ts";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const RESEARCH = ["docs.create_page", "web.search", "web.summarize_page"];
let tg: Toolgraph;

beforeAll(async () => {
  tg = await openToolgraph({
    home: "memory://",
    project: "sparse",
    embeddings: "hash:64",
    now: () => NOW,
    resultCacheSize: 0,
    recommendationLog: { enabled: false },
  });
  await tg.importCatalog(demoCatalog());
  // Research runs recorded without data flow (e.g. by a client that does not report it); the rest with it.
  const traces = demoTraces(400, 5, NOW).map((e) =>
    e.capability === "research" ? { ...e, steps: e.steps.map(({ dependsOn: _d, ...st }) => st) } : e,
  );
  await tg.importTraces(traces);
}, 120_000);

afterAll(async () => {
  await tg?.close();
});

describe("default DAG graph", () => {
  it("the dependency graph exists but knows nothing of the research tools", async () => {
    const dep = await tg.buildDag({ tools: RESEARCH, graph: "dependency" });
    expect(dep.graph).toBe("dependency");
    expect(dep.edges.filter((e) => e.evidence === "dependency" || e.evidence === "path")).toEqual([]);
  });

  it("the default orders them by the history graph, and says it stands in for the dependency graph", async () => {
    const dag = await tg.buildDag({ tools: RESEARCH });
    expect(dag.graph).toBe("dependency");
    expect(dag.edges.map((e) => [e.from, e.to])).toEqual([
      ["web.search", "web.summarize_page"],
      ["web.summarize_page", "docs.create_page"],
    ]);
    for (const e of dag.edges)
      expect(e.explanation).toMatch(
        /in the history graph .*standing in for the dependency graph, which records no data flow in or out of /,
      );
    expect(dag.layers).toEqual([["web.search"], ["web.summarize_page"], ["docs.create_page"]]);
  });

  it("tools with recorded data flow keep the dependency graph's answer", async () => {
    const tools = ["git.push", "git.commit", "git.diff", "git.create_branch"];
    const auto = await tg.buildDag({ tools });
    const dep = await tg.buildDag({ tools, graph: "dependency" });
    expect(auto.edges).toEqual(dep.edges);
  });

  it("the library-only ablation switches the fallback off: the default then answers as the dependency graph", async () => {
    const off = await tg.buildDag({ tools: RESEARCH, ablation: { historyFallback: false } });
    const dep = await tg.buildDag({ tools: RESEARCH, graph: "dependency" });
    expect(off.edges).toEqual(dep.edges);
    expect(off.edges.some((e) => /in the history graph/.test(e.explanation))).toBe(false);
  });

  it("the ablation is not part of the request HTTP and MCP validate, and a misspelt switch names its field", async () => {
    expect(buildDagRequest.safeParse({ tools: RESEARCH, ablation: { hops: 1 } }).success).toBe(false);
    await expect(tg.buildDag({ tools: RESEARCH, ablation: { hop: 1 } as never })).rejects.toThrow(/ablation/);
  });
});
