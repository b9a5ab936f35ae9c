/** Human-readable output helpers for the CLI: aligned tables and a progress bar on stderr. */

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (typeof c === "number" ? fmtNum(c) : c)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? "").length)));
  const line = (r: (string | number)[]) => r.map((c, i) => String(c ?? "").padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(cells[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

export function fmtNum(x: number): string {
  if (Number.isInteger(x)) return String(x);
  return x.toFixed(Math.abs(x) >= 100 ? 1 : 3);
}

/**
 * A progress bar written to stderr, only on a terminal and only once the work has taken more than
 * `delayMs` (default 1 s), so short imports print nothing extra.
 */
export class Progress {
  private readonly label: string;
  private readonly start = Date.now();
  private readonly enabled: boolean;
  private readonly delayMs: number;
  private lastDraw = 0;
  private drawn = false;

  constructor(label: string, opts: { enabled?: boolean; delayMs?: number } = {}) {
    this.label = label;
    this.enabled = opts.enabled ?? Boolean(process.stderr.isTTY);
    this.delayMs = opts.delayMs ?? 1000;
  }

  update(done: number, total: number): void {
    if (!this.enabled) return;
    const t = Date.now();
    if (t - this.start < this.delayMs || (t - this.lastDraw < 100 && done < total)) return;
    this.lastDraw = t;
    this.drawn = true;
    const width = 30;
    const frac = total > 0 ? Math.min(1, done / total) : 0;
    const bar = "█".repeat(Math.round(frac * width)).padEnd(width, "░");
    process.stderr.write(`\r${this.label} ${bar} ${done}/${total} (${Math.round(frac * 100)}%)`);
  }

  done(): void {
    if (this.drawn) process.stderr.write("\n");
  }
}
