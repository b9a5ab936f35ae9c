import { expect } from "vitest";

/** A strict parser of the Prometheus text format (0.0.4) for what the registry writes. */
export function parseExposition(text: string): {
  types: Map<string, string>;
  samples: { name: string; labels: Record<string, string>; value: number }[];
} {
  const types = new Map<string, string>();
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  expect(text.endsWith("\n")).toBe(true);
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("# HELP ")) continue;
    const t = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (t) {
      types.set(t[1]!, t[2]!);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    if (m[2]) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/gy;
      let consumed = 0;
      for (let g = re.exec(m[2]); g !== null; g = re.exec(m[2])) {
        labels[g[1]!] = g[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
        consumed = re.lastIndex;
      }
      if (consumed !== m[2].length) throw new Error(`bad labels: ${m[2]}`);
    }
    const v = m[3] === "+Inf" ? Number.POSITIVE_INFINITY : Number(m[3]);
    if (Number.isNaN(v) && m[3] !== "NaN") throw new Error(`bad value: ${m[3]}`);
    samples.push({ name: m[1]!, labels, value: v });
  }
  return { types, samples };
}
