/// <reference lib="dom" />
/**
 * The console's tool panel: a tool's description, statistics, next steps and neighbours, as the server's
 * /v1/console/tool answers them (app-graph.ts fetches it when a tool is picked).
 */
import { $, decision, esc, fmt, type Json, ms, pct, status } from "./app-common.ts";

export function renderToolDetail(d: Json): void {
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
