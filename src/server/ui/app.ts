/// <reference lib="dom" />
/**
 * The console's browser script (bundled by console.ts with esbuild; runs in the page, never in Node).
 * Four views over the server's JSON: the tool graph (sigma.js over a graphology graph: colour = Louvain
 * community, size = PageRank, edge colour = type, width = quality), search, plan (DAG by layers with the
 * critical path), and the dashboard over the recommendation log.
 */
import Graph from "graphology";
import Sigma from "sigma";

type Json = any;

const params = new URLSearchParams(location.search);
const project = params.get("project") ?? undefined;
const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
  "#1f77b4",
  "#8c564b",
];
const EDGE_COLOURS: Record<string, string> = {
  dependency: "#d2491b",
  contains: "#6a51a3",
  provides: "#2b8cbe",
  sequence: "#9aa3b5",
};

function esc(s: unknown): string {
  return String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
function fmt(v: unknown, digits = 3): string {
  return typeof v === "number" && Number.isFinite(v) ? v.toFixed(digits) : "–";
}
function pct(v: unknown): string {
  return typeof v === "number" && Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : "–";
}
function ms(v: unknown): string {
  return typeof v === "number" && Number.isFinite(v)
    ? v >= 1000
      ? `${(v / 1000).toFixed(1)} s`
      : `${v.toFixed(v < 10 ? 2 : 0)} ms`
    : "–";
}
function decision(d: unknown): string {
  return `<span class="decision ${esc(d)}">${esc(d)}</span>`;
}
function status(text: string): void {
  $("status").textContent = text;
}

function withProject(path: string): string {
  if (!project) return path;
  return `${path}${path.includes("?") ? "&" : "?"}project=${encodeURIComponent(project)}`;
}

async function getJson(path: string): Promise<Json> {
  const r = await fetch(withProject(path), { credentials: "same-origin" });
  const body = await r.json();
  if (!r.ok) throw new Error(body?.error?.message ?? `${r.status}`);
  return body;
}

async function postJson(path: string, body: object): Promise<Json> {
  const r = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(project ? { ...body, project } : body),
  });
  const out = await r.json();
  if (!r.ok) throw new Error(out?.error?.message ?? `${r.status}`);
  return out;
}

// ---- views ----
const views = ["graph", "search", "plan", "dashboard"] as const;
type View = (typeof views)[number];

function show(view: View): void {
  for (const v of views) $(`view-${v}`).hidden = v !== view;
  for (const b of document.querySelectorAll<HTMLButtonElement>(".tab"))
    b.classList.toggle("active", b.dataset.view === view);
  if (view === "dashboard") void loadDashboard();
  else if (view === "graph") void loadGraph();
  history.replaceState(null, "", `#${view}`);
}

// ---- graph ----
let sigma: Sigma | undefined;
let selectedTool: string | undefined;
let selectedCapability: { id: string; tools: Set<string> } | undefined;

let graphLoading: Promise<void> | undefined;
function loadGraph(): Promise<void> {
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
  const t = d.tool;
  const rel = (rows: Json[], key: string) =>
    rows.length === 0
      ? `<p class="muted">none</p>`
      : `<table><tr><th>${key}</th><th>type</th><th class="num">quality</th><th class="num">seen</th></tr>${rows
          .map(
            (r) =>
              `<tr><td>${esc(r.tool)}</td><td>${esc(r.type)} <span class="muted">${esc(r.source)}</span></td><td class="num">${fmt(r.weight, 2)}</td><td class="num">${r.observations}</td></tr>`,
          )
          .join("")}</table>`;
  $("tool-detail").innerHTML = `
    <h2 id="tool-title">${esc(t.id)}</h2>
    <p>${esc(t.description)}</p>
    <table class="tool-stats">
      <tr><th>community</th><td>${t.community}</td><th>PageRank</th><td class="num">${fmt(t.pagerank, 4)}</td></tr>
      <tr><th>executions</th><td class="num" data-field="executions">${t.executions}</td><th>success rate</th><td class="num" data-field="success-rate">${pct(t.successRate)}</td></tr>
      <tr><th>mean latency</th><td class="num" data-field="latency">${ms(t.avgLatencyMs)}</td><th>capabilities</th><td>${esc(t.capabilities.join(", ") || "–")}</td></tr>
    </table>
    <h3>Next step after ${esc(t.id)}</h3>
    ${
      d.next.length === 0
        ? `<p class="muted">no suggestion</p>`
        : `<table id="next-steps"><tr><th>tool</th><th class="num">confidence</th><th>gate</th></tr>${d.next
            .map(
              (s: Json) =>
                `<tr title="${esc(s.explanation)}"><td>${esc(s.tool)}</td><td class="num">${fmt(s.confidence, 2)}</td><td>${decision(s.decision)}</td></tr>`,
            )
            .join("")}</table>`
    }
    <h3>Leads to (${d.successors.length})</h3>${rel(d.successors, "successor")}
    <h3>Comes after (${d.predecessors.length})</h3>${rel(d.predecessors, "predecessor")}`;
  status("");
}

// ---- search ----
async function runSearch(intent: string): Promise<void> {
  status("searching…");
  $("search-result").innerHTML = "";
  const r: Json = await postJson("/v1/search", { intent, limit: 10, explain: true });
  const rows = r.results
    .map(
      (x: Json, i: number) => `<tr class="hit">
        <td class="num">${i + 1}</td><td>${decision(x.gate.decision)}</td><td><b class="hit-tool">${esc(x.tool)}</b><div class="explanation">${esc(x.explanation)}</div></td>
        <td class="num">${fmt(x.score)}</td><td class="num">${fmt(x.breakdown?.alpha, 2)}</td>
        <td class="num">${fmt(x.breakdown?.cosine, 2)}</td><td class="num">${fmt(x.breakdown?.bm25Norm, 2)}</td><td class="num">${fmt(x.breakdown?.memory, 2)}</td><td class="num">${fmt(x.breakdown?.graph, 2)}</td>
      </tr>`,
    )
    .join("");
  $("search-result").innerHTML = `
    <div class="cards">
      <div class="card">gate<b id="search-gate">${r.abstained ? "abstained" : "answered"}</b><span class="muted">${esc(r.reason ?? `${r.accepted?.length ?? 0} accepted`)}</span></div>
      <div class="card">threshold<b>${fmt(r.threshold?.adjusted, 2)}</b><span class="muted">${esc(r.threshold?.reasoning ?? "")}</span></div>
      <div class="card">time<b>${ms(r.timings?.totalMs)}</b><span class="muted">answer ${esc(r.recommendationId ?? "")}</span></div>
    </div>
    <table id="search-table"><tr><th>#</th><th>gate</th><th>tool and explanation</th><th class="num">score</th><th class="num">α</th><th class="num">cosine</th><th class="num">BM25</th><th class="num">memory</th><th class="num">graph</th></tr>${rows}</table>
    <p class="muted">score = α·semantic + (1−α)·graph; semantic fuses the channels cosine, BM25 and intent memory.</p>`;
  status("");
}

// ---- plan ----
async function runPlan(intent: string): Promise<void> {
  status("planning…");
  $("plan-result").innerHTML = "";
  const r: Json = await postJson("/v1/plan", { intent, limit: 6 });
  const layers: string[][] = r.layers ?? [];
  const critical = new Set<string>(r.timing?.criticalPath ?? []);
  const colW = 190;
  const rowH = 46;
  const width = Math.max(1, layers.length) * colW + 20;
  const height = Math.max(1, ...layers.map((l) => l.length)) * rowH + 40;
  const at = new Map<string, [number, number]>();
  layers.forEach((l, i) => {
    l.forEach((t, j) => {
      at.set(t, [10 + i * colW, 30 + j * rowH]);
    });
  });
  const path = r.timing?.criticalPath ?? [];
  const onPath = (a: string, b: string) => path.some((x: string, i: number) => x === a && path[i + 1] === b);
  const edges = (r.edges ?? [])
    .map((e: Json) => {
      const a = at.get(e.from);
      const b = at.get(e.to);
      if (!a || !b) return "";
      const hot = onPath(e.from, e.to);
      return `<line x1="${a[0] + 160}" y1="${a[1] + 15}" x2="${b[0]}" y2="${b[1] + 15}" stroke="${hot ? "#d2491b" : "#8591a8"}" stroke-width="${hot ? 2.5 : 1.2}" marker-end="url(#arrow)"><title>${esc(e.explanation)}</title></line>`;
    })
    .join("");
  const nodes = [...at.entries()]
    .map(
      ([t, [x, y]]) =>
        `<g class="dag-node${critical.has(t) ? " critical" : ""}" data-tool="${esc(t)}"><rect x="${x}" y="${y}" width="160" height="30" rx="4"></rect><text x="${x + 8}" y="${y + 19}">${esc(t)}</text></g>`,
    )
    .join("");
  const heads = layers.map((_, i) => `<text x="${10 + i * colW}" y="16" class="muted">layer ${i}</text>`).join("");
  $("plan-result").innerHTML = `
    <div class="cards">
      <div class="card">gate<b id="plan-gate">${esc(r.gate?.decision ?? "–")}</b><span class="muted">confidence ${fmt(typeof r.confidence === "number" ? r.confidence : r.confidence?.score, 2)}</span></div>
      <div class="card">layers<b id="plan-layers">${layers.length}</b><span class="muted">${(r.tools ?? []).length} tools</span></div>
      <div class="card">critical path<b>${ms(r.timing?.wallTimeMs)}</b><span class="muted">sequential ${ms(r.timing?.sequentialMs)} · speed-up ${fmt(r.timing?.speedup, 2)}×</span></div>
    </div>
    <div class="chart"><svg id="plan-svg" width="${width}" height="${height}" role="img" aria-label="plan DAG">
      <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#8591a8"/></marker></defs>
      ${heads}${edges}${nodes}</svg></div>
    <p>Critical path: <span id="critical-path">${esc(path.join(" → ") || "–")}</span></p>
    <table><tr><th>tool</th><th>why</th></tr>${(r.tools ?? []).map((t: Json) => `<tr><td>${esc(t.tool)}</td><td class="explanation">${esc(t.why)}</td></tr>`).join("")}</table>`;
  status("");
}

// ---- dashboard ----
function lineChart(opts: {
  title: string;
  xLabel: string;
  yLabel: string;
  series: { name: string; colour: string; points: [number, number][] }[];
  xTicks?: (v: number) => string;
  yMax?: number;
  /** Half-width of the x range when every point has the same x. Default 1. */
  xPad?: number;
}): string {
  const W = 440;
  const H = 240;
  const L = 50;
  const R = 12;
  const T = 28;
  const B = 40;
  const pts = opts.series.flatMap((s) => s.points);
  if (pts.length === 0) return `<div class="chart"><b>${esc(opts.title)}</b><p class="muted">no data yet</p></div>`;
  let x0 = Math.min(...pts.map((p) => p[0]));
  let x1 = Math.max(...pts.map((p) => p[0]));
  if (x0 === x1) {
    x0 -= opts.xPad ?? 1;
    x1 += opts.xPad ?? 1;
  }
  const y1 = opts.yMax ?? Math.max(1e-9, ...pts.map((p) => p[1]));
  const sx = (v: number) => L + ((v - x0) / (x1 - x0)) * (W - L - R);
  const sy = (v: number) => H - B - (v / y1) * (H - T - B);
  const fx = opts.xTicks ?? ((v: number) => fmt(v, 2));
  const ticksY = [0, 0.25, 0.5, 0.75, 1].map((f) => f * y1);
  const ticksX = [0, 0.5, 1].map((f) => x0 + f * (x1 - x0));
  const grid = ticksY
    .map(
      (v) =>
        `<line x1="${L}" x2="${W - R}" y1="${sy(v)}" y2="${sy(v)}" stroke="#eee"/><text x="${L - 6}" y="${sy(v) + 4}" text-anchor="end">${fmt(v, 2)}</text>`,
    )
    .join("");
  const xt = ticksX
    .map((v) => `<text x="${sx(v)}" y="${H - B + 16}" text-anchor="middle">${esc(fx(v))}</text>`)
    .join("");
  const lines = opts.series
    .map(
      (s) =>
        `<polyline fill="none" stroke="${s.colour}" stroke-width="2" points="${s.points.map((p) => `${sx(p[0])},${sy(p[1])}`).join(" ")}"/>` +
        s.points.map((p) => `<circle cx="${sx(p[0])}" cy="${sy(p[1])}" r="3" fill="${s.colour}"/>`).join(""),
    )
    .join("");
  const legend = opts.series
    .map(
      (s, i) =>
        `<rect x="${L + i * 150}" y="8" width="10" height="10" fill="${s.colour}"/><text x="${L + 14 + i * 150}" y="17">${esc(s.name)}</text>`,
    )
    .join("");
  return `<div class="chart"><b>${esc(opts.title)}</b><svg width="${W}" height="${H}" role="img" aria-label="${esc(opts.title)}">${grid}${xt}${lines}${legend}
    <text x="${(L + W - R) / 2}" y="${H - 6}" text-anchor="middle">${esc(opts.xLabel)}</text>
    <text transform="translate(12 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">${esc(opts.yLabel)}</text></svg></div>`;
}

async function loadDashboard(): Promise<void> {
  status("loading dashboard…");
  const d: Json = await getJson("/v1/console/dashboard?days=7");
  const jobs = d.perJob
    .map(
      (j: Json) =>
        `<tr data-job="${esc(j.job)}"><td>${esc(j.job)}</td><td class="num">${j.answers}</td><td class="num">${pct(j.acceptance)}</td><td class="num">${j.judged}</td><td class="num">${pct(j.precisionAccepted)}</td><td class="num">${ms(j.latencyP50Ms)}</td><td class="num">${ms(j.latencyP99Ms)}</td></tr>`,
    )
    .join("");
  const times = d.timeline.map((t: Json) => Date.parse(t.start));
  const timeline = lineChart({
    title: "Acceptance and precision of accepted answers over time",
    xLabel: "time (UTC)",
    yLabel: "fraction of answers",
    yMax: 1,
    xTicks: (v) => new Date(v).toISOString().slice(5, 16).replace("T", " "),
    xPad: 86_400_000,
    series: [
      {
        name: "acceptance",
        colour: "#4e79a7",
        points: d.timeline.map((t: Json, i: number) => [times[i], t.acceptance]),
      },
      {
        name: "precision of accepted",
        colour: "#59a14f",
        points: d.timeline
          .filter((t: Json) => t.precisionAccepted !== null)
          .map((t: Json) => [Date.parse(t.start), t.precisionAccepted]),
      },
    ],
  });
  const rc = lineChart({
    title: "Risk–coverage on live answers (threshold on the top score)",
    xLabel: "coverage (fraction of judged answers kept)",
    yLabel: "precision of kept answers",
    yMax: 1,
    series: [
      {
        name: "precision",
        colour: "#e15759",
        points: d.riskCoverage.filter((p: Json) => p.precision !== null).map((p: Json) => [p.coverage, p.precision]),
      },
    ],
  });
  const tools = d.tools
    .slice(0, 25)
    .map(
      (t: Json) =>
        `<tr><td>${esc(t.tool)}</td><td class="num">${t.executions}</td><td class="num">${pct(t.successRate)}</td><td class="num">${ms(t.avgLatencyMs)}</td></tr>`,
    )
    .join("");
  const recent = d.recent
    .map(
      (r: Json) =>
        `<tr><td>${esc(r.at.slice(11, 19))}</td><td>${esc(r.job)}</td><td>${esc(r.request.intent ?? (r.request.context ?? r.request.tools ?? [r.request.tool]).join(", "))}</td><td>${esc(r.top ?? "–")}</td><td>${decision(r.decision)}</td><td>${r.outcome ? `${esc(r.outcome.kind)} ${r.correct ? "✓" : "✗"}` : "–"}</td></tr>`,
    )
    .join("");
  const accepted = d.perJob.reduce((t: number, j: Json) => t + j.accepted, 0);
  $("dashboard").innerHTML = `
    <div class="cards">
      <div class="card">answers (7 days)<b id="dash-answers">${d.answers}</b></div>
      <div class="card">accepted by the gate<b>${d.answers === 0 ? "–" : pct(accepted / d.answers)}</b></div>
      <div class="card">answers with an outcome<b>${d.judged}</b></div>
    </div>
    <h3>Answers per job</h3>
    <table id="jobs-table"><tr><th>job</th><th class="num">answers</th><th class="num">acceptance</th><th class="num">with outcome</th><th class="num">precision of accepted</th><th class="num">latency p50</th><th class="num">latency p99</th></tr>${jobs}</table>
    <div class="charts">${timeline}${rc}</div>
    <h3>Per-tool success and latency (recorded executions)</h3>
    <table id="tools-table"><tr><th>tool</th><th class="num">executions</th><th class="num">success rate</th><th class="num">mean latency</th></tr>${tools}</table>
    <h3>Latest answers</h3>
    <table id="recent-table"><tr><th>time</th><th>job</th><th>request</th><th>top item</th><th>gate</th><th>outcome</th></tr>${recent}</table>`;
  status("");
}

// ---- wiring ----
for (const b of document.querySelectorAll<HTMLButtonElement>(".tab"))
  b.addEventListener("click", () => show(b.dataset.view as View));
$("search-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  runSearch($<HTMLInputElement>("search-input").value).catch((err) =>
    status(`search failed: ${(err as Error).message}`),
  );
});
$("plan-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  runPlan($<HTMLInputElement>("plan-input").value).catch((err) => status(`plan failed: ${(err as Error).message}`));
});
window.addEventListener("unhandledrejection", (ev) => status(`error: ${(ev.reason as Error)?.message ?? ev.reason}`));
const first = location.hash.slice(1) as View;
show(views.includes(first) ? first : "graph");
if (first !== "graph") void loadGraph().catch(() => {});
