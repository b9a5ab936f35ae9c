/** Human-readable output helpers for the CLI: aligned tables and a progress bar on stderr. */

/**
 * An aligned text table. When `width` is known (default: the terminal's columns when stdout is one) and the
 * table is wider, the widest columns shrink (never below their header or 6 characters) and their cells wrap
 * onto more lines, at spaces where possible.
 */
export function table(
  headers: string[],
  rows: (string | number)[][],
  opts: { width?: number | undefined } = {},
): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (typeof c === "number" ? fmtNum(c) : String(c ?? ""))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? "").length)));
  const limit = opts.width ?? (process.stdout.isTTY ? process.stdout.columns : undefined);
  if (limit !== undefined && limit > 0) fitWidths(widths, headers, cells, limit);
  const physical = (r: (string | number)[]): string[] => {
    const wrapped = widths.map((w, i) => wrap(String(r[i] ?? ""), w));
    const height = Math.max(1, ...wrapped.map((w) => w.length));
    return Array.from({ length: height }, (_, k) =>
      wrapped
        .map((w, i) => (w[k] ?? "").padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    );
  };
  return [
    ...physical(cells[0]!),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...cells.slice(1).flatMap(physical),
  ].join("\n");
}

/**
 * Shrinks the widest column one character at a time until the row fits `limit` or none can shrink: first
 * among the columns of prose (cells with spaces, which wrap well), then among all.
 */
function fitWidths(widths: number[], headers: string[], cells: string[][], limit: number): void {
  const floor = headers.map((h) => Math.max(6, h.length));
  const prose = headers.map((_, i) => cells.slice(1).some((r) => (r[i] ?? "").includes(" ")));
  let total = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  for (const eligible of [(i: number) => prose[i]!, () => true]) {
    while (total > limit) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++)
        if (eligible(i) && widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
      if (widest < 0) break;
      widths[widest]!--;
      total--;
    }
  }
}

/** Splits `text` into lines of at most `width` characters, breaking at the last space when there is one. */
export function wrap(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const space = rest.lastIndexOf(" ", width);
    const cut = space > width / 3 ? space : width;
    lines.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0) lines.push(rest);
  return lines;
}

/** "120.5/s, ETA 0:42" from `done` of `total` items after `elapsedMs` (no ETA before the first item). */
export function rateAndEta(done: number, total: number, elapsedMs: number): string {
  if (done <= 0 || elapsedMs <= 0) return "";
  const rate = (done * 1000) / elapsedMs;
  const left = Math.max(0, Math.round((total - done) / rate));
  const eta =
    left >= 3600
      ? `${Math.floor(left / 3600)}:${String(Math.floor((left % 3600) / 60)).padStart(2, "0")}:${String(left % 60).padStart(2, "0")}`
      : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  return `${rate >= 100 ? rate.toFixed(0) : rate.toFixed(1)}/s, ETA ${eta}`;
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
    process.stderr.write(
      `\r${this.label} ${bar} ${done}/${total} (${Math.round(frac * 100)}%) ${rateAndEta(done, total, t - this.start)}`,
    );
  }

  done(): void {
    if (this.drawn) process.stderr.write("\n");
  }
}
