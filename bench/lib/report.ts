import { execSync } from "node:child_process";
/** Bench output helpers: the machine, markdown tables, JSON results and SVG files (charts: bench/lib/charts.ts). */
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
  return [
    `| ${headers.join(" | ")} |`,
    `| ${headers.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
}

export function writeResult(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
  return path;
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
  const at = (p: number) =>
    v.length === 0 ? Number.NaN : v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))]!;
  return {
    p50: at(50),
    p95: at(95),
    p99: at(99),
    mean: v.reduce((a, b) => a + b, 0) / Math.max(1, v.length),
    n: v.length,
  };
}

/** A text progress bar on stderr for long benches (only on a terminal). */
export function progress(label: string, done: number, total: number): void {
  if (!process.stderr.isTTY) return;
  const w = 30;
  const f = total > 0 ? done / total : 1;
  process.stderr.write(
    `\r${label} ${"█".repeat(Math.round(f * w)).padEnd(w, "░")} ${done}/${total}${done >= total ? "\n" : ""}`,
  );
}

/** The commit the bench ran on, "+dirty" when its code had changes (results files are not code). */
export function codeVersion(): string {
  try {
    const head = execSync("git rev-parse --short HEAD", { stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
    const dirty =
      execSync("git status --porcelain -- src algorithms bench ':(exclude)bench/results'", {
        stdio: ["ignore", "pipe", "ignore"],
      })
        .toString()
        .trim().length > 0;
    return dirty ? `${head}+dirty` : head;
  } catch {
    return "unknown";
  }
}
