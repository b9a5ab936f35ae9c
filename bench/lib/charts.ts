/**
 * SVG charts a reader can read: one question per chart (the title asks it), labelled axes with units, ticks
 * at round values whose labels are all distinct, the legend above the plot (never clipped), p50 and p99
 * side by side. Dependency-free; deterministic text output.
 *
 * - `barChartSvg`: horizontal grouped bars, one row per category (e.g. an operation), one bar per series
 *   (e.g. p50, p99), linear or log₁₀ value axis.
 * - `lineChartSvg`: series over a numeric x, fixed or automatic y domain, dashed series allowed.
 * - `niceTicks`: round tick values (1, 2, 2.5, 5 × 10^k steps) covering [min, max]; `tickLabels` prints them
 *   with the fewest decimals that keep every label distinct (no "0.01 / 0.01 / 0.00").
 */

export const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"] as const;

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Round ticks from ≤ min to ≥ max, about `count` of them. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? 10 * mag;
  const lo = Math.floor(min / step + 1e-9) * step;
  const out: number[] = [];
  for (let v = lo; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  if (out[out.length - 1]! < max - step * 1e-9) out.push(Number((out[out.length - 1]! + step).toPrecision(12)));
  return out;
}

/** Labels with the fewest decimals (0–6) that keep every label distinct. */
export function tickLabels(values: readonly number[]): string[] {
  for (let d = 0; d <= 6; d++) {
    const labels = values.map((v) => v.toFixed(d));
    if (
      new Set(labels).size === labels.length &&
      values.every((v, i) => Math.abs(Number(labels[i]) - v) < 1e-9 * Math.max(1, Math.abs(v)))
    )
      return labels;
  }
  return values.map((v) => String(v));
}

/** Powers of ten covering [min, max] (both > 0). */
export function logTicks(min: number, max: number): number[] {
  const out: number[] = [];
  for (let k = Math.floor(Math.log10(min)); k <= Math.ceil(Math.log10(max)); k++) out.push(10 ** k);
  return out;
}

function logLabel(v: number): string {
  return v >= 1 ? v.toLocaleString("en-US") : String(Number(v.toPrecision(1)));
}

function header(W: number, H: number, title: string, subtitle: string | undefined): string[] {
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">${esc(title)}</text>`,
  ];
  if (subtitle) out.push(`<text x="12" y="40" fill="#555">${esc(subtitle)}</text>`);
  return out;
}

/** Legend items in a grid that fits `width` (columns of the widest item); returns the lines and the rows used. */
function legend(
  x: number,
  y: number,
  width: number,
  series: readonly { name: string; colour: string; dashed?: boolean }[],
): { lines: string[]; rows: number } {
  const itemW = 44 + 7 * Math.max(...series.map((s) => s.name.length));
  const cols = Math.max(1, Math.min(series.length, Math.floor(width / itemW)));
  const lines: string[] = [];
  series.forEach((s, i) => {
    const cx = x + (i % cols) * itemW;
    const cy = y + Math.floor(i / cols) * LEGEND_ROW;
    lines.push(
      `<line x1="${cx}" y1="${cy - 4}" x2="${cx + 22}" y2="${cy - 4}" stroke="${s.colour}" stroke-width="3"${s.dashed ? ' stroke-dasharray="5 3"' : ""}/>`,
    );
    lines.push(`<text x="${cx + 28}" y="${cy}">${esc(s.name)}</text>`);
  });
  return { lines, rows: Math.ceil(series.length / cols) };
}

const LEGEND_ROW = 18;

function legendRows(width: number, series: readonly { name: string }[]): number {
  const itemW = 44 + 7 * Math.max(...series.map((s) => s.name.length));
  const cols = Math.max(1, Math.min(series.length, Math.floor(width / itemW)));
  return Math.ceil(series.length / cols);
}

export interface BarChart {
  title: string;
  subtitle?: string | undefined;
  /** The value axis label, with its unit, e.g. "latency (ms, log scale)". */
  valueLabel: string;
  categories: string[];
  series: { name: string; colour?: string; values: (number | null)[] }[];
  log?: boolean | undefined;
}

/** Horizontal grouped bars: one row per category, one bar per series; the value printed at each bar's end. */
export function barChartSvg(c: BarChart): string {
  const labelW = Math.min(280, 12 + 6.8 * Math.max(...c.categories.map((s) => s.length)));
  const barH = 11;
  const groupH = barH * c.series.length + 8;
  const W = 860;
  const plotW = W - labelW - 90;
  const top =
    (c.subtitle ? 60 : 44) +
    LEGEND_ROW *
      legendRows(
        plotW,
        c.series.map((s) => ({ name: s.name })),
      );
  const H = top + groupH * c.categories.length + 50;
  const values = c.series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const series = c.series.map((s, i) => ({ ...s, colour: s.colour ?? COLOURS[i % COLOURS.length]! }));
  let ticks: number[];
  let labels: string[];
  let pos: (v: number) => number;
  if (c.log) {
    const lo = Math.max(1e-6, Math.min(...values.filter((v) => v > 0)));
    ticks = logTicks(lo, Math.max(...values));
    labels = ticks.map(logLabel);
    const a = Math.log10(ticks[0]!);
    const b = Math.log10(ticks[ticks.length - 1]!);
    pos = (v) => labelW + ((Math.log10(Math.max(v, ticks[0]!)) - a) / (b - a || 1)) * plotW;
  } else {
    ticks = niceTicks(0, Math.max(...values, 1e-9));
    labels = tickLabels(ticks);
    const b = ticks[ticks.length - 1]!;
    pos = (v) => labelW + (v / b) * plotW;
  }
  const out = header(W, H, c.title, c.subtitle);
  out.push(...legend(labelW, (c.subtitle ? 60 : 44) + 4, plotW, series).lines);
  const bottom = top + groupH * c.categories.length;
  ticks.forEach((t, i) => {
    out.push(`<line x1="${pos(t)}" y1="${top}" x2="${pos(t)}" y2="${bottom}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${pos(t)}" y="${bottom + 16}" text-anchor="middle">${esc(labels[i]!)}</text>`);
  });
  out.push(`<line x1="${labelW}" y1="${bottom}" x2="${labelW + plotW}" y2="${bottom}" stroke="black"/>`);
  out.push(`<text x="${labelW + plotW / 2}" y="${bottom + 38}" text-anchor="middle">${esc(c.valueLabel)}</text>`);
  c.categories.forEach((cat, g) => {
    const y0 = top + g * groupH + 4;
    out.push(`<text x="${labelW - 8}" y="${y0 + (barH * series.length) / 2 + 4}" text-anchor="end">${esc(cat)}</text>`);
    series.forEach((s, k) => {
      const v = s.values[g];
      if (v === null || v === undefined || !Number.isFinite(v)) return;
      const x1 = pos(v);
      const y = y0 + k * barH;
      out.push(
        `<rect x="${labelW}" y="${y}" width="${Math.max(1, x1 - labelW)}" height="${barH - 2}" fill="${s.colour}"/>`,
      );
      out.push(`<text x="${x1 + 4}" y="${y + barH - 3}" font-size="10" fill="#333">${esc(formatValue(v))}</text>`);
    });
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** A value with 3 significant digits (thousands grouped). */
export function formatValue(v: number): string {
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString("en-US");
  return String(Number(v.toPrecision(3)));
}

export interface LineChart {
  title: string;
  subtitle?: string | undefined;
  xLabel: string;
  yLabel: string;
  series: { name: string; colour?: string; dashed?: boolean; points: { x: number; y: number }[] }[];
  /** Fixed y domain (e.g. [0, 1] for fractions). Default: [0, max] rounded up. */
  yDomain?: [number, number] | undefined;
}

export function lineChartSvg(c: LineChart): string {
  const W = 720;
  const L = 64;
  const R = 24;
  const plotW = W - L - R;
  const top = (c.subtitle ? 60 : 44) + LEGEND_ROW * legendRows(plotW, c.series);
  const H = top + 300 + 56;
  const plotH = 300;
  const series = c.series.map((s, i) => ({ ...s, colour: s.colour ?? COLOURS[i % COLOURS.length]! }));
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  const xt = niceTicks(Math.min(...xs), Math.max(...xs), 6);
  const yt = c.yDomain ? niceTicks(c.yDomain[0], c.yDomain[1], 5) : niceTicks(0, Math.max(...ys, 1e-9), 5);
  const [x0, x1] = [xt[0]!, xt[xt.length - 1]!];
  const [y0, y1] = [yt[0]!, yt[yt.length - 1]!];
  const px = (x: number) => L + ((x - x0) / (x1 - x0 || 1)) * plotW;
  const py = (y: number) => top + plotH - ((y - y0) / (y1 - y0 || 1)) * plotH;
  const out = header(W, H, c.title, c.subtitle);
  out.push(...legend(L, (c.subtitle ? 60 : 44) + 4, plotW, series).lines);
  const xl = tickLabels(xt);
  const yl = tickLabels(yt);
  xt.forEach((t, i) => {
    out.push(`<line x1="${px(t)}" y1="${top}" x2="${px(t)}" y2="${top + plotH}" stroke="#eee"/>`);
    out.push(`<text x="${px(t)}" y="${top + plotH + 16}" text-anchor="middle">${xl[i]}</text>`);
  });
  yt.forEach((t, i) => {
    out.push(`<line x1="${L}" y1="${py(t)}" x2="${L + plotW}" y2="${py(t)}" stroke="#eee"/>`);
    out.push(`<text x="${L - 6}" y="${py(t) + 4}" text-anchor="end">${yl[i]}</text>`);
  });
  out.push(`<line x1="${L}" y1="${top + plotH}" x2="${L + plotW}" y2="${top + plotH}" stroke="black"/>`);
  out.push(`<line x1="${L}" y1="${top}" x2="${L}" y2="${top + plotH}" stroke="black"/>`);
  out.push(`<text x="${L + plotW / 2}" y="${top + plotH + 38}" text-anchor="middle">${esc(c.xLabel)}</text>`);
  out.push(
    `<text x="16" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${top + plotH / 2})">${esc(c.yLabel)}</text>`,
  );
  for (const s of series) {
    const pts = s.points.slice().sort((a, b) => a.x - b.x);
    out.push(
      `<polyline fill="none" stroke="${s.colour}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ""} points="${pts.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(" ")}"/>`,
    );
    for (const p of pts)
      out.push(`<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${s.colour}"/>`);
  }
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
