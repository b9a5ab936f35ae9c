/// <reference lib="dom" />
/**
 * The console's graph view: the project's tool graph drawn with sigma.js over graphology (colour = Louvain
 * community, size = PageRank, edge colour = type, width = quality); a click on a tool opens its panel (app-tool.ts).
 */
import Graph from "graphology";
import Sigma from "sigma";
import { $, EDGE_COLOURS, esc, fmt, getJson, type Json, PALETTE, pct, status } from "./app-common.ts";
import { renderToolDetail } from "./app-tool.ts";

let sigma: Sigma | undefined;
let selectedTool: string | undefined;
let selectedCapability: { id: string; tools: Set<string> } | undefined;

let graphLoading: Promise<void> | undefined;
export function loadGraph(): Promise<void> {
  graphLoading ??= drawGraph();
  return graphLoading;
}

async function drawGraph(): Promise<void> {
  status("loading graph…");
  const g: Json = await getJson("/v1/console/graph");
  $("project-name").textContent = `project ${g.project} · graph version ${g.version}`;
  const graph = new Graph({ type: "directed", multi: false });
  const maxPr = Math.max(1e-12, ...g.nodes.map((n: Json) => n.pagerank));
  for (const n of g.nodes) {
    graph.addNode(n.id, {
      label: n.label,
      x: n.x,
      y: n.y,
      size: 4 + 14 * Math.sqrt(n.pagerank / maxPr),
      color: PALETTE[n.community % PALETTE.length],
      community: n.community,
    });
  }
  for (const e of g.edges) {
    if (!graph.hasNode(e.from) || !graph.hasNode(e.to) || graph.hasEdge(e.from, e.to)) continue;
    graph.addEdge(e.from, e.to, {
      size: 0.5 + 3 * e.weight,
      color: EDGE_COLOURS[e.type] ?? "#ccc",
      type: e.type,
      weight: e.weight,
    });
  }
  const communities = [...new Set<number>(g.nodes.map((n: Json) => n.community))].sort((a, b) => a - b);
  $("legend").innerHTML =
    communities
      .map(
        (c) =>
          `<span><i class="swatch" style="background:${PALETTE[c % PALETTE.length]}"></i>community ${c} (${g.nodes.filter((n: Json) => n.community === c).length})</span>`,
      )
      .join("") +
    `<div class="muted">${Object.entries(EDGE_COLOURS)
      .map(([t, c]) => `<span><i class="swatch" style="background:${c}"></i>${t}</span>`)
      .join("")} · node size = PageRank · edge width = quality</div>`;
  $("capabilities").innerHTML = g.capabilities
    .map(
      (c: Json) =>
        `<li data-capability="${esc(c.id)}" data-tools="${esc(c.tools.join(" "))}"><b>${esc(c.name)}</b> <span class="muted">${c.tools.length} tools · ${pct(c.successRate)} success</span></li>`,
    )
    .join("");
  for (const li of $("capabilities").querySelectorAll<HTMLLIElement>("li")) {
    li.addEventListener("click", () => {
      const id = li.dataset.capability!;
      selectedCapability =
        selectedCapability?.id === id ? undefined : { id, tools: new Set((li.dataset.tools ?? "").split(" ")) };
      for (const x of $("capabilities").querySelectorAll("li"))
        x.classList.toggle("selected", x === li && selectedCapability !== undefined);
      sigma?.refresh();
    });
  }
  $("graph-summary").textContent =
    `${g.nodes.length} tools · ${g.edges.length} edges · ${g.communities} communities (modularity ${fmt(g.modularity, 2)}) · ${g.capabilities.length} capabilities`;
  try {
    sigma = new Sigma(graph, $("sigma"), {
      settings: {
        renderEdgeLabels: false,
        labelRenderedSizeThreshold: 6,
        itemSizesReference: "screen",
        zoomToSizeRatioFunction: Math.sqrt,
      },
      nodeReducer: (node, data) => {
        const out: Json = { ...data };
        if (selectedCapability && !selectedCapability.tools.has(node)) out.color = "#e2e5ea";
        if (selectedTool) {
          if (node === selectedTool) out.highlighted = true;
          else if (!graph.areNeighbors(node, selectedTool)) out.color = "#e2e5ea";
        }
        return out;
      },
      edgeReducer: (edge, data) => {
        const out: Json = { ...data };
        if (selectedTool && !graph.hasExtremity(edge, selectedTool)) out.hidden = true;
        return out;
      },
    });
    sigma.on("clickNode", ({ node }) => void selectTool(node));
    sigma.on("clickStage", () => {
      selectedTool = undefined;
      sigma?.refresh();
    });
    (window as Json).__toolgraph = {
      graph,
      sigma,
      /** Viewport position of a node (for tests and for people debugging the layout). */
      nodePosition: (id: string) => {
        const a = graph.getNodeAttributes(id);
        return sigma!.graphToViewport({ x: a.x, y: a.y });
      },
    };
    status("");
  } catch (err) {
    $("sigma").innerHTML =
      `<p class="muted">The graph needs WebGL, which this browser did not provide (${esc((err as Error).message)}). Tools: ${g.nodes
        .map((n: Json) => `<a href="#" data-tool="${esc(n.id)}">${esc(n.id)}</a>`)
        .join(", ")}</p>`;
    for (const a of $("sigma").querySelectorAll<HTMLAnchorElement>("a[data-tool]")) {
      a.addEventListener("click", (ev) => {
        ev.preventDefault();
        void selectTool(a.dataset.tool!);
      });
    }
    status("");
  }
  document.body.dataset.graphReady = "true";
}

async function selectTool(id: string): Promise<void> {
  selectedTool = id;
  sigma?.refresh();
  status(`loading ${id}…`);
  const d: Json = await getJson(`/v1/console/tool?id=${encodeURIComponent(id)}`);
  renderToolDetail(d);
}
