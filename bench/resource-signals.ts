/**
 * How the gate's resource signals behave on the machine that answers (why they are not applied:
 * docs/decisions/gate-thresholds.md): samples the gate's
 * resource reading (readResources, from the package) once per second and tallies the signal and
 * the threshold that RESOURCE_RULES would set for a request no other rule touches.
 *
 *   npx tsx bench/resource-signals.ts [--seconds 60]
 *
 * Writes bench/results/resource-signals.json. The point measured: whether the same request would get the
 * same threshold from one second to the next.
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { adjustThreshold } from "../algorithms/thresholds/adjust-threshold.ts";
import { RESOURCE_RULES, RULES } from "../algorithms/thresholds/adjustment-rules.ts";
import { extractResourceSignals } from "../algorithms/thresholds/resource-signals.ts";
import { readResources } from "../src/index.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "60" } } });
const seconds = Number(values.seconds);
const user = { reputation: 0.5, successRate: 0.7, taskCount: 5, recentErrors: 0 };
const task = { project: "p", urgency: "medium" as const, complexity: 0.5 };
const env = { isProduction: false, isCriticalTask: false };
const samples: { at: string; memory: number; cpu: number; load1m: number; signals: string[]; threshold: number }[] = [];
for (let i = 0; i < seconds; i++) {
  const r = readResources(process.cwd(), Date.now());
  const signals = extractResourceSignals(r).signals;
  const threshold = adjustThreshold(
    { user, environment: env, task, resources: r },
    { rules: [...RULES, ...RESOURCE_RULES] },
  ).adjustedThreshold;
  samples.push({
    at: new Date().toISOString(),
    memory: r.memory,
    cpu: r.cpu,
    load1m: r.loadAverage1m,
    signals: [...signals],
    threshold,
  });
  await new Promise((res) => setTimeout(res, 1000));
}
const tally = (f: (s: (typeof samples)[number]) => string) => {
  const m: Record<string, number> = {};
  for (const s of samples) m[f(s)] = (m[f(s)] ?? 0) + 1;
  return m;
};
const q = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const out = {
  seconds,
  uptimeLoad: loadavg(),
  memory: {
    p50: q(
      samples.map((s) => s.memory),
      0.5,
    ),
    min: Math.min(...samples.map((s) => s.memory)),
    max: Math.max(...samples.map((s) => s.memory)),
  },
  cpu: {
    p50: q(
      samples.map((s) => s.cpu),
      0.5,
    ),
    min: Math.min(...samples.map((s) => s.cpu)),
    max: Math.max(...samples.map((s) => s.cpu)),
  },
  signals: tally((s) => s.signals.join("+") || "(none)"),
  thresholdWithResourceRules: tally((s) => s.threshold.toFixed(2)),
  thresholdWithoutResourceRules: 0.7,
  samples,
};
writeFileSync("bench/results/resource-signals.json", `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify({ ...out, samples: undefined }, null, 2));
