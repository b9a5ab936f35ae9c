/** Bench output helpers: the machine, markdown tables, JSON results and simple SVG line charts. */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, freemem, totalmem, type } from "node:os";
import { join } from "node:path";

export const RESULTS_DIR = join(import.meta.dirname, "..", "results");

export function machine(): string {
  const c = cpus();
  return `${type()} ${process.arch}, ${c.length} × ${c[0]?.model.trim() ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM (${(freemem() / 2 ** 30).toFixed(1)} free), Node ${process.version}`;
}

export function fmt(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  if (Number.isInteger(x) && Math.abs(x) >= 10) return String(x);
  return x.toFixed(digits);
}

export function markdownTable(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const cell = (v: string | number | null | undefined) => (typeof v === "number" ? fmt(v) : (v ?? "–"));
  return [`| ${headers.join(" | ")} |`, `| ${headers.map(() => "---").join(" | ")} |`, ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`)].join("\n");
}

export function writeResult(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
  return path;
}

export interface Series {
  name: string;
  points: { x: number; y: number }[];
}

/** A small dependency-free SVG line chart (log-x optional). */
export function lineChartSvg(title: string, xLabel: string, yLabel: string, series: Series[], opts: { logX?: boolean } = {}): string {
  const W = 640;
  const H = 400;
  const m = { l: 60, r: 150, t: 40, b: 50 };
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  const tx = (x: number) => (opts.logX ? Math.log10(x) : x);
  const x0 = Math.min(...xs.map(tx));
  const x1 = Math.max(...xs.map(tx));
  const y1 = Math.max(...ys, 1e-9) * 1.1;
  const px = (x: number) => m.l + ((tx(x) - x0) / (x1 - x0 || 1)) * (W - m.l - m.r);
  const py = (y: number) => H - m.b - (y / y1) * (H - m.t - m.b);
  const colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${title}</text>`,
    `<line x1="${m.l}" y1="${H - m.b}" x2="${W - m.r}" y2="${H - m.b}" stroke="black"/>`,
    `<line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${H - m.b}" stroke="black"/>`,
    `<text x="${(W - m.r + m.l) / 2}" y="${H - 12}" text-anchor="middle">${xLabel}</text>`,
    `<text x="14" y="${H / 2}" text-anchor="middle" transform="rotate(-90 14 ${H / 2})">${yLabel}</text>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const y = (y1 * k) / 4;
    parts.push(`<text x="${m.l - 6}" y="${py(y) + 4}" text-anchor="end">${fmt(y, 2)}</text>`);
    parts.push(`<line x1="${m.l}" y1="${py(y)}" x2="${W - m.r}" y2="${py(y)}" stroke="#eee"/>`);
  }
  for (const x of [...new Set(xs)]) parts.push(`<text x="${px(x)}" y="${H - m.b + 16}" text-anchor="middle">${x}</text>`);
  series.forEach((s, i) => {
    const c = colors[i % colors.length];
    const pts = s.points.slice().sort((a, b) => a.x - b.x);
    parts.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.map((p) => `${px(p.x)},${py(p.y)}`).join(" ")}"/>`);
    for (const p of pts) parts.push(`<circle cx="${px(p.x)}" cy="${py(p.y)}" r="3" fill="${c}"/>`);
    parts.push(`<text x="${W - m.r + 10}" y="${m.t + 16 * i}" fill="${c}">${s.name}</text>`);
  });
  parts.push("</svg>");
  return parts.join("\n");
}

export function writeSvg(name: string, svg: string): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.svg`);
  writeFileSync(path, svg);
  return path;
}

/** Nearest-rank percentiles of durations in ms. */
export function percentiles(values: number[]): { p50: number; p95: number; p99: number; mean: number; n: number } {
  const v = values.slice().sort((a, b) => a - b);
  const at = (p: number) => (v.length === 0 ? Number.NaN : v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))]!);
  return { p50: at(50), p95: at(95), p99: at(99), mean: v.reduce((a, b) => a + b, 0) / Math.max(1, v.length), n: v.length };
}

/** A text progress bar on stderr for long benches (only on a terminal). */
export function progress(label: string, done: number, total: number): void {
  if (!process.stderr.isTTY) return;
  const w = 30;
  const f = total > 0 ? done / total : 1;
  process.stderr.write(`\r${label} ${"█".repeat(Math.round(f * w)).padEnd(w, "░")} ${done}/${total}${done >= total ? "\n" : ""}`);
}
