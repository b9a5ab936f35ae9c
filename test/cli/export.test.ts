/**
 * `toolgraph export` on a real database (its own schema on the server, else its own embedded directory;
 * test/cli/harness.ts), in process: the GraphML and GEXF outputs are parsed back with
 * graphology's own parsers (graphology-graphml, graphology-gexf) and compared with the graph view.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Graph from "graphology";
import * as gexf from "graphology-gexf";
import * as graphml from "graphology-graphml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toGEXF, toGraphML } from "../../src/formats/graph-xml.ts";
import { engineOf, openToolgraph } from "../../src/library/toolgraph.ts";
import { type GraphView, graphView } from "../../src/view/graph-view.ts";
import { type CliResult, cli, freshTarget, type Target, useEmbeddings } from "./harness.ts";

let target: Target;
let view: GraphView;
/** Where the GEXF file goes. */
let dir: string;
let restoreEmbeddings: () => void;
const run = (...argv: string[]): Promise<CliResult> => cli(target).run(...argv);

beforeAll(async () => {
  restoreEmbeddings = useEmbeddings("hash:256");
  target = await freshTarget();
  dir = mkdtempSync(join(tmpdir(), "tg-export-"));
  const d = await run("demo", "--traces", "200", "--json");
  expect(d.code, d.err).toBe(0);
  const tg = await openToolgraph({ ...target.options, project: "demo", embeddings: "hash:256" });
  try {
    view = await graphView(engineOf(tg), "demo");
  } finally {
    await tg.close();
  }
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await target?.dispose();
  restoreEmbeddings();
});

function checkAgainstView(g: Graph): void {
  expect(g.order).toBe(view.nodes.length);
  expect(g.size).toBe(view.edges.length);
  expect(g.type).toBe("directed");
  for (const n of view.nodes) {
    const a = g.getNodeAttributes(n.id);
    expect(a.community).toBe(n.community);
    expect(a.pagerank).toBeCloseTo(n.pagerank, 12);
    expect(a.executions).toBe(n.executions);
    if (n.successRate === null) expect(a.successRate).toBeUndefined();
    else expect(a.successRate).toBeCloseTo(n.successRate, 12);
    expect(a.capabilities ?? "").toBe(n.capabilities.join(","));
  }
  for (const e of view.edges) {
    const key = g.edge(e.from, e.to);
    expect(key, `${e.from} → ${e.to}`).toBeDefined();
    const a = g.getEdgeAttributes(key!);
    expect(a.weight).toBeCloseTo(e.weight, 12);
    expect(a.type).toBe(e.type);
    expect(a.observations).toBe(e.observations);
  }
}

describe("toolgraph export", () => {
  it("GraphML on stdout parses back to the same tools, communities, PageRank and typed edges", async () => {
    const r = await run("export", "--format", "graphml", "--project", "demo");
    expect(r.code, r.err).toBe(0);
    const g = graphml.parse(Graph, r.out);
    expect(view.nodes.length).toBe(41);
    checkAgainstView(g);
  });

  it("GEXF to a file parses back the same, with a position, size and colour per tool", async () => {
    const file = join(dir, "tools.gexf");
    const r = await run("export", "--format", "gexf", "--out", file, "--project", "demo", "--json");
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      file,
      format: "gexf",
      project: "demo",
      nodes: view.nodes.length,
      edges: view.edges.length,
    });
    const g = gexf.parse(Graph, readFileSync(file, "utf8"));
    checkAgainstView(g);
    const a = g.getNodeAttributes("git.push");
    expect(typeof a.x).toBe("number");
    expect(typeof a.size).toBe("number");
    expect(a.color).toMatch(/^rgb\(\d+,\d+,\d+\)$/);
  });

  it("an unknown or missing format is a usage error (exit 2) naming the flag", async () => {
    const r = await run("export", "--format", "dot", "--project", "demo");
    expect(r.code).toBe(2);
    expect(r.err).toContain('--format must be graphml or gexf, got "dot"');
    expect((await run("export", "--project", "demo")).code).toBe(2);
  });

  it("special and control characters are escaped or dropped, and parse back", () => {
    const v: GraphView = {
      project: 'p&<"q>',
      version: 1,
      communities: 1,
      modularity: 0,
      capabilities: [],
      nodes: [
        {
          id: "a<&>",
          label: "a<&>",
          description: `say "hi" & 'bye'\u0001\ttab`,
          server: null,
          community: 0,
          pagerank: 1,
          executions: 0,
          successRate: null,
          avgLatencyMs: null,
          capabilities: ["c1", "c2"],
          x: 0,
          y: 0,
        },
        {
          id: "b",
          label: "b",
          description: "",
          server: "s",
          community: 0,
          pagerank: 0.5,
          executions: 2,
          successRate: 0.5,
          avgLatencyMs: 10,
          capabilities: [],
          x: 1,
          y: 1,
        },
      ],
      edges: [{ from: "a<&>", to: "b", type: "sequence", source: "observed", weight: 0.5, observations: 3 }],
    };
    for (const g of [graphml.parse(Graph, toGraphML(v)), gexf.parse(Graph, toGEXF(v))]) {
      expect(g.getNodeAttribute("a<&>", "description")).toBe(`say "hi" & 'bye'\ttab`);
      expect(g.getNodeAttribute("a<&>", "capabilities")).toBe("c1,c2");
      expect(g.getNodeAttribute("a<&>", "successRate")).toBeUndefined();
      expect(g.getNodeAttribute("b", "server")).toBe("s");
      expect(g.getEdgeAttribute(g.edge("a<&>", "b")!, "weight")).toBe(0.5);
    }
  });
});
