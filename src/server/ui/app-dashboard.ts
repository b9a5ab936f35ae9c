/// <reference lib="dom" />
/**
 * The console's dashboard over the recommendation log (/v1/console/dashboard): answers and outcomes over
 * time, per-tool success and latency, the latest answers.
 */
import { $, decision, esc, fmt, getJson, type Json, ms, pct, status } from "./app-common.ts";

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

export async function loadDashboard(): Promise<void> {
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
