/**
 * The worst trigger-pattern work one request may cause, and whether it stalls others (the budget:
 * algorithms/search/pattern-triggers.ts).
 *
 *   npx tsx bench/pattern-worst-case.ts [--reps 5] [--unbounded-reps 1]
 *
 * Catalog at the allowed maximum: 40 capabilities × 50 patterns = 2,000 (LIMITS.patternsPerProject), each an
 * accepted ~200-character pattern without any required literal (`\w{1,29}\s…\d{5}`, never matching the intent, a program of ~1,000
 * instructions: the prefilter cannot skip it), and a 4,000-character intent (the request maximum; patterns see
 * the first 2,000). Measured in one run, alternating:
 * - "bounded": scorePatterns with the default match budget (what a request does now);
 * - "unbounded": the same with an infinite budget (what a request did before), fewer repetitions;
 * - the longest event-loop gap while a bounded request runs (setImmediate ticks), and /health latency over
 *   HTTP (embedded database, the same catalog) while /v1/capabilities/match requests run vs idle.
 * Raw results: bench/results/pattern-worst-case.json (+ .md).
 */
import { loadavg, uptime as osUptime } from "node:os";
import { parseArgs } from "node:util";
import { matchBudget, DEFAULTS as TRIGGER_DEFAULTS } from "../algorithms/search/pattern-triggers.ts";
import { compileSafeRegex } from "../algorithms/search/safe-regex.ts";
import { LIMITS } from "../src/formats/index.ts";
import { openToolgraph, startServer } from "../src/index.ts";
import { GraphSnapshot } from "../src/view/graph-snapshot.ts";
import { scorePatterns } from "../src/view/patterns.ts";
import { machine, markdownTable, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: { reps: { type: "string", default: "5" }, "unbounded-reps": { type: "string", default: "1" } },
});
const reps = Number(values.reps);
const unboundedReps = Number(values["unbounded-reps"]);

const CAPS = LIMITS.patternsPerProject / LIMITS.patternsPerCapability;
function pattern(i: number): string {
  let s = "";
  for (let k = 0; s.length < 185; k++) s += `\\w{1,${20 + ((i + k) % 10)}}\\s`;
  // Ends in five digits: the intent's words have at most two, so no pattern ever matches and the NFA scans
  // the whole input (the worst case); no literal anywhere, so the prefilter cannot skip it.
  return `${s}\\d{${5 + (i % 3)}}`;
}
const patterns = Array.from({ length: LIMITS.patternsPerProject }, (_, i) => pattern(i));
const program = compileSafeRegex(patterns[0]!).program.length;
const intent = Array.from({ length: 1000 }, (_, i) => `w${i % 97}`)
  .join(" ")
  .padEnd(4000, " q")
  .slice(0, 4000);
const caps = Array.from({ length: CAPS }, (_, c) => ({
  id: `cap${c}`,
  name: `cap${c}`,
  description: "",
  patterns: patterns.slice(c * LIMITS.patternsPerCapability, (c + 1) * LIMITS.patternsPerCapability),
  keywords: [],
  priority: 0,
})) as unknown as ConstructorParameters<typeof GraphSnapshot>[0]["capabilities"];

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
const stats = (xs: number[]) => ({
  n: xs.length,
  p50: pct(xs, 50),
  p95: pct(xs, 95),
  p99: pct(xs, 99),
  max: Math.max(...xs),
});

/** Runs fn while counting the longest gap between event-loop turns. */
async function withLoopGap<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; maxGapMs: number }> {
  let last = performance.now();
  let maxGap = 0;
  let on = true;
  const tick = () => {
    const t = performance.now();
    maxGap = Math.max(maxGap, t - last);
    last = t;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  on = false;
  return { value, ms, maxGapMs: maxGap };
}

const loadBefore = loadavg();
// Compile once (derived state of the snapshot's catalog, yields while compiling).
const view = new GraphSnapshot({
  project: "patterns",
  version: 1,
  tools: [],
  edges: [],
  stats: [],
  capabilities: caps,
});
const compile = await withLoopGap(() => scorePatterns(view, "warm up", matchBudget()));
const bounded: number[] = [];
const gaps: number[] = [];
const unbounded: number[] = [];
let work: unknown;
for (let r = 0; r < reps; r++) {
  const b = await withLoopGap(() => scorePatterns(view, intent, matchBudget()));
  bounded.push(b.ms);
  gaps.push(b.maxGapMs);
  work = b.value.work;
  if (r < unboundedReps) {
    const u = await withLoopGap(() => scorePatterns(view, intent, matchBudget(Number.POSITIVE_INFINITY)));
    unbounded.push(u.ms);
  }
}

// /health over HTTP while match requests run, vs idle (embedded database, same catalog).
const tg = await openToolgraph({ home: "memory://", database: "", project: "worst", embeddings: "hash:64" });
await tg.importCatalog({
  tools: [{ id: "t", description: "tool" }],
  capabilities: caps.map((c) => ({ id: c.id, tools: ["t"], patterns: c.patterns })),
});
const server = await startServer({ api: tg, port: 0, log: () => {} });
async function healthWhile(busy: boolean): Promise<{ health: number[]; match: number[] }> {
  const health: number[] = [];
  const match: number[] = [];
  let running = true;
  const load = busy
    ? (async () => {
        for (let i = 0; i < reps; i++) {
          const t = performance.now();
          const r = await fetch(`${server.url}/v1/capabilities/match`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ intent: `${intent.slice(0, 3990)} ${i}` }),
          });
          await r.text();
          match.push(performance.now() - t);
        }
        running = false;
      })()
    : new Promise<void>((r) =>
        setTimeout(() => {
          running = false;
          r();
        }, 2000),
      );
  while (running) {
    const t = performance.now();
    await (await fetch(`${server.url}/health`)).text();
    health.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 20));
  }
  await load;
  return { health, match };
}
const idle = await healthWhile(false);
const busy = await healthWhile(true);
await server.close();
await tg.close();

const result = {
  bench: "pattern-worst-case",
  machine: machine(),
  at: new Date().toISOString(),
  loadavg: { before: loadBefore, after: loadavg() },
  uptimeS: osUptime(),
  setup: {
    capabilities: CAPS,
    patterns: patterns.length,
    patternChars: patterns[0]!.length,
    programSize: program,
    intentChars: intent.length,
    matchedChars: TRIGGER_DEFAULTS.maxInputLength,
    budgetSteps: TRIGGER_DEFAULTS.maxMatchWork,
  },
  compileMs: compile.ms,
  compileMaxLoopGapMs: compile.maxGapMs,
  patternWork: work,
  scorePatternsMs: { bounded: stats(bounded), unbounded: stats(unbounded) },
  eventLoopMaxGapMs: stats(gaps),
  healthMs: { idle: stats(idle.health), duringMatch: stats(busy.health) },
  matchRequestMs: stats(busy.match),
};
const path = writeResult("pattern-worst-case", result);
const f = (x: number) => x.toFixed(1);
const row = (name: string, s: { n: number; p50: number; p95: number; p99: number; max: number }) => [
  name,
  String(s.n),
  f(s.p50),
  f(s.p95),
  f(s.p99),
  f(s.max),
];
const md = `# Trigger patterns: worst case allowed\n\n${CAPS} capabilities × ${LIMITS.patternsPerCapability} patterns (${patterns[0]!.length} chars, program ${program}, no required literal), intent ${intent.length} chars; budget ${TRIGGER_DEFAULTS.maxMatchWork} NFA steps. ${result.machine}; load average ${loadBefore.map((x) => x.toFixed(2)).join(", ")} before.\n\nPattern work of a bounded request: ${JSON.stringify(work)}. Compile (once per catalog): ${f(compile.ms)} ms, longest event-loop gap ${f(compile.maxGapMs)} ms.\n\n${markdownTable(
  ["measure (ms)", "n", "p50", "p95", "p99", "max"],
  [
    row("scorePatterns, bounded (now)", result.scorePatternsMs.bounded),
    row("scorePatterns, unbounded (before)", result.scorePatternsMs.unbounded),
    row("longest event-loop gap during a bounded request", result.eventLoopMaxGapMs),
    row("/health, idle", result.healthMs.idle),
    row("/health, during /v1/capabilities/match", result.healthMs.duringMatch),
    row("/v1/capabilities/match request", result.matchRequestMs),
  ],
)}\n`;
const { writeFileSync } = await import("node:fs");
writeFileSync(path.replace(/\.json$/, ".md"), md);
process.stdout.write(md);
