/**
 * Prometheus metrics, hand-written text exposition (format 0.0.4): counters, gauges and histograms with
 * labels, held by one registry per server (no module state). `render()` returns the exposition text;
 * gauges may be computed at scrape time (`collect` callbacks).
 *
 * Histogram buckets are cumulative (`le` upper bounds plus `+Inf`), with `_sum` and `_count`, as the
 * format requires; label values are escaped (backslash, double quote, newline).
 */

export type Labels = Record<string, string>;

/** Request latency buckets in seconds: 0.5 ms … 10 s. */
export const LATENCY_BUCKETS_S = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
] as const;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k]!)}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

function key(labels: Labels): string {
  return labelText(labels);
}

function num(v: number): string {
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  if (Number.isNaN(v)) return "NaN";
  return String(v);
}

interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  lines(): string[];
}

export class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) throw new Error(`${this.name}: a counter only goes up (got ${by})`);
    const k = key(labels);
    const e = this.values.get(k);
    if (e) e.value += by;
    else this.values.set(k, { labels, value: by });
  }
  get(labels: Labels = {}): number {
    return this.values.get(key(labels))?.value ?? 0;
  }
  lines(): string[] {
    return [...this.values.values()].map((e) => `${this.name}${labelText(e.labels)} ${num(e.value)}`);
  }
}

export class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[] = LATENCY_BUCKETS_S,
  ) {
    for (let i = 1; i < buckets.length; i++)
      if (!(buckets[i]! > buckets[i - 1]!)) throw new Error(`${name}: buckets must increase`);
  }
  observe(labels: Labels, value: number): void {
    const k = key(labels);
    let s = this.series.get(k);
    if (!s) {
      s = { labels, counts: new Array(this.buckets.length).fill(0), sum: 0, count: 0 };
      this.series.set(k, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }
  lines(): string[] {
    const out: string[] = [];
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) => {
        out.push(`${this.name}_bucket${labelText(s.labels, ["le", num(b)])} ${s.counts[i]}`);
      });
      out.push(`${this.name}_bucket${labelText(s.labels, ["le", "+Inf"])} ${s.count}`);
      out.push(`${this.name}_sum${labelText(s.labels)} ${num(s.sum)}`);
      out.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return out;
  }
}

/** A gauge (or a counter read from elsewhere) whose samples are computed at scrape time. */
export interface Collected {
  name: string;
  help: string;
  type: "counter" | "gauge";
  collect(): Promise<{ labels: Labels; value: number }[]> | { labels: Labels; value: number }[];
}

export class MetricsRegistry {
  private readonly families: Family[] = [];
  private readonly collected: Collected[] = [];

  counter(name: string, help: string): Counter {
    const c = new Counter(name, help);
    this.families.push({ name, help, type: "counter", lines: () => c.lines() });
    return c;
  }

  histogram(name: string, help: string, buckets?: readonly number[]): Histogram {
    const h = new Histogram(name, help, buckets);
    this.families.push({ name, help, type: "histogram", lines: () => h.lines() });
    return h;
  }

  collect(c: Collected): void {
    this.collected.push(c);
  }

  /** The exposition text (`text/plain; version=0.0.4`). A failing collector is skipped, never failing the scrape. */
  async render(): Promise<string> {
    const out: string[] = [];
    for (const f of this.families) {
      out.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`, ...f.lines());
    }
    for (const c of this.collected) {
      let samples: { labels: Labels; value: number }[];
      try {
        samples = await c.collect();
      } catch {
        continue;
      }
      out.push(
        `# HELP ${c.name} ${c.help}`,
        `# TYPE ${c.name} ${c.type}`,
        ...samples.map((s) => `${c.name}${labelText(s.labels)} ${num(s.value)}`),
      );
    }
    return `${out.join("\n")}\n`;
  }
}

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
