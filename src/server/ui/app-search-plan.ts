/// <reference lib="dom" />
/**
 * The console's search and plan views: the ordinary /v1/search and /v1/plan answers, with their
 * explanations and gate decisions (the plan's DAG by layers, with the critical path).
 */
import { $, decision, esc, fmt, type Json, ms, postJson, status } from "./app-common.ts";

export async function runSearch(intent: string): Promise<void> {
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
export async function runPlan(intent: string): Promise<void> {
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
