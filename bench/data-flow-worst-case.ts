/**
 * Data-flow matching at its worst (algorithms/strings/data-flow.ts; docs/decisions/data-flow-matching.md).
 *
 *   npx tsx bench/data-flow-worst-case.ts [--reps 20] [--before-ref <git ref>] [--before-reps 1]
 *
 * Each scenario is a sequence of calls handled as the gateway's recorder handles them: per call, the
 * dependencies of its arguments on the earlier steps' outputs, then its own output extracted (and, now,
 * indexed). Every call runs in its own event-loop turn, and perf_hooks.monitorEventLoopDelay watches the
 * loop meanwhile.
 * - issue-3: three `everything.echo` calls with a 65,000-character message ("a" × 65,000; the result is
 *   "Echo: " + message), then one call with 256 arguments "aaaa" (found 64,997 times in each text, never
 *   at a word boundary);
 * - issue-10: the same with 10 echo calls;
 * - distinct-10: 10 echoes of a 65,000-letter pseudo-random word over a, b, c, d, then the 256 distinct
 *   four-letter words over those letters as arguments (each occurs ~250 times in each text, never at a
 *   boundary; no two values alike, so nothing is saved by looking a repeated value up once);
 * - long-values-10: 10 results of 13,000 words "aaaa aaaa …", then 256 values of 1,000 characters that
 *   share all but their last word with the text (multi-run patterns, long common prefixes);
 * - cap-200: 200 such results, then the same 256 values: the work cap (maxWork) ends the call.
 * Each scenario runs twice on the current code: "after", each call's output indexed in one piece (as the recorder
 * did), and "stepped", as the recorder does now (its SliceQueue): the dependencies and the indexing
 * (stepOutputSteps) in slices of SLICE_MS with a turn of the event loop between, each slice's CPU time recorded.
 * `--before-ref` runs issue-3 and issue-10 again on data-flow.ts as of that git ref (`git show`), fewer
 * repetitions; the slow scenarios it would take minutes on are skipped.
 * Results: bench/results/data-flow-worst-case.json (+ .md).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import * as current from "../algorithms/strings/data-flow.ts";
import { codeVersion, machine, markdownTable, writeResult } from "./lib/report.ts";

const { values: cli } = parseArgs({
  options: {
    reps: { type: "string", default: "20" },
    "before-ref": { type: "string" },
    "before-reps": { type: "string", default: "1" },
  },
});
const reps = Number(cli.reps);
/** The recorder's slice (SLICE_MS of src/view/background.ts, which a bench may not import). */
const SLICE_MS = 8;
const beforeReps = Number(cli["before-reps"]);

interface Impl {
  dataFlowDependencies: (args: unknown, earlier: readonly any[]) => number[];
  stepOutput: (args: unknown, result: { content?: unknown; structuredContent?: unknown } | undefined) => any;
  dataFlowDependenciesDetailed?: (
    args: unknown,
    earlier: readonly any[],
  ) => { dependsOn: number[]; work: number; truncated: boolean };
}

interface Call {
  args: Record<string, unknown>;
  result: { content: { type: "text"; text: string }[] };
}

const MESSAGE = "a".repeat(65_000);
const echo = (m: string): Call => ({
  args: { message: m },
  result: { content: [{ type: "text", text: `Echo: ${m}` }] },
});
const fourLetters: Call = {
  args: Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`k${i}`, "aaaa"])),
  result: { content: [{ type: "text", text: "ok" }] },
};
const LETTERS = "abcd";
let seed = 1;
// 32-bit arithmetic: `(seed * 1_103_515_245 + 12_345) % 2 ** 31` in doubles lost the low bits and cycled
// within a few hundred letters (before docs/decisions/data-flow-matching.md's stepped-indexing rerun).
const PSEUDO = Array.from({ length: 65_000 }, () => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
  return LETTERS[seed >>> 30];
}).join("");
const distinctFour: Call = {
  args: Object.fromEntries(
    Array.from({ length: 256 }, (_, i) => [`k${i}`, [6, 4, 2, 0].map((s) => LETTERS[(i >> s) & 3]).join("")]),
  ),
  result: { content: [{ type: "text", text: "ok" }] },
};
const WORDS = Array.from({ length: 13_000 }, () => "aaaa").join(" ");
const words = (): Call => ({ args: {}, result: { content: [{ type: "text", text: WORDS }] } });
const longValues: Call = {
  args: Object.fromEntries(
    Array.from({ length: 256 }, (_, i) => [`v${i}`, `${"aaaa ".repeat(199)}b${String(i).padStart(3, "0")}`]),
  ),
  result: { content: [{ type: "text", text: "ok" }] },
};

const SCENARIOS: Record<string, { calls: Call[]; before: boolean }> = {
  "issue-3": { calls: [echo(MESSAGE), echo(MESSAGE), echo(MESSAGE), fourLetters], before: true },
  "issue-10": { calls: [...Array.from({ length: 10 }, () => echo(MESSAGE)), fourLetters], before: true },
  "distinct-10": { calls: [...Array.from({ length: 10 }, () => echo(PSEUDO)), distinctFour], before: true },
  "long-values-10": { calls: [...Array.from({ length: 10 }, words), longValues], before: false },
  "cap-200": { calls: [...Array.from({ length: 200 }, words), longValues], before: false },
};

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
type Stats = { n: number; p50: number; p95: number; p99: number; max: number };
const stats = (xs: number[]): Stats => ({
  n: xs.length,
  p50: pct(xs, 50),
  p95: pct(xs, 95),
  p99: pct(xs, 99),
  max: Math.max(...xs),
});
const turn = () => new Promise<void>((r) => setImmediate(r));

interface Run {
  /** Wall time of every call (ms). */
  call: Stats;
  /** CPU time of every call (ms; the machine is shared, so wall time includes waiting for a core). */
  callCpu: Stats;
  /** The last call (the one with many values): wall time, and CPU time. */
  matching: Stats;
  matchingCpu: Stats;
  /** Event-loop delay while the sequence ran (ms), from monitorEventLoopDelay at 10 ms resolution. */
  loopDelay: { p50: number; p99: number; max: number };
  dependsOn: number[];
  work?: { work: number; truncated: boolean };
  /**
   * As the recorder runs it now (its SliceQueue): a call's dependencies, then its output indexed by
   * stepOutputSteps in slices of SLICE_MS with a turn of the event loop between: each slice's CPU time.
   */
  slice?: Stats;
  sliceCpu?: Stats;
}

async function run(impl: Impl, calls: Call[], times: number, stepped = false): Promise<Run> {
  const wall: number[] = [];
  const cpu: number[] = [];
  const matching: number[] = [];
  const matchingCpu: number[] = [];
  let dependsOn: number[] = [];
  let work: Run["work"];
  const slices: number[] = [];
  const slicesCpu: number[] = [];
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  // The histogram measures from its timer's first turn: a block before that would go unseen.
  await new Promise((r) => setTimeout(r, 30));
  for (let r = 0; r < times; r++) {
    const outputs: unknown[] = [];
    for (let c = 0; c < calls.length; c++) {
      await turn();
      const call = calls[c]!;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      // What SessionRecorder.step does with each call.
      const deps = impl.dataFlowDependencies(call.args, outputs);
      let used: NodeJS.CpuUsage;
      let ms: number;
      if (!stepped) {
        outputs.push(impl.stepOutput(call.args, call.result));
        ms = performance.now() - t0;
        used = process.cpuUsage(c0);
      } else {
        // The recorder's slices: the dependencies and the first SLICE_MS of indexing, then a turn, and so on.
        const steps = current.stepOutputSteps(call.args, call.result);
        let s0 = t0;
        let sc = c0;
        let busy = 0;
        let cpuSum = 0;
        for (;;) {
          const r = steps.next();
          const done = r.done === true;
          if (done) outputs.push(r.value);
          if (done || performance.now() - s0 >= SLICE_MS) {
            const sliceMs = performance.now() - s0;
            const u = process.cpuUsage(sc);
            slices.push(sliceMs);
            slicesCpu.push((u.user + u.system) / 1000);
            busy += sliceMs;
            cpuSum += (u.user + u.system) / 1000;
            if (done) break;
            await turn();
            s0 = performance.now();
            sc = process.cpuUsage();
          }
        }
        ms = busy;
        used = { user: cpuSum * 1000, system: 0 };
      }
      wall.push(ms);
      cpu.push((used.user + used.system) / 1000);
      if (c === calls.length - 1) {
        matching.push(ms);
        matchingCpu.push(cpu.at(-1)!);
        dependsOn = deps;
        if (impl.dataFlowDependenciesDetailed) {
          const d = impl.dataFlowDependenciesDetailed(call.args, outputs.slice(0, -1));
          work = { work: d.work, truncated: d.truncated };
        }
      }
    }
  }
  // Let the histogram's timer fire once after the last call, so a call that blocked it is counted.
  await new Promise((r) => setTimeout(r, 25));
  h.disable();
  const ns = (x: number) => x / 1e6;
  return {
    call: stats(wall),
    callCpu: stats(cpu),
    matching: stats(matching),
    matchingCpu: stats(matchingCpu),
    loopDelay: { p50: ns(h.percentile(50)), p99: ns(h.percentile(99)), max: ns(h.max) },
    dependsOn,
    ...(work ? { work } : {}),
    ...(stepped ? { slice: stats(slices), sliceCpu: stats(slicesCpu) } : {}),
  };
}

const code = codeVersion();

let before: Impl | undefined;
let beforeRef: string | undefined;
if (cli["before-ref"]) {
  beforeRef = execFileSync("git", ["rev-parse", "--short", cli["before-ref"]], { encoding: "utf8" }).trim();
  const dir = mkdtempSync(join(tmpdir(), "data-flow-before-"));
  const file = join(dir, "data-flow.ts");
  // The module moved from src/gateway/ to algorithms/strings/; an older ref has it at the old path.
  const show = (path: string) => execFileSync("git", ["show", `${beforeRef}:${path}`], { encoding: "utf8" });
  let text: string;
  try {
    text = show("algorithms/strings/data-flow.ts");
  } catch {
    text = show("src/gateway/data-flow.ts");
  }
  writeFileSync(file, text);
  before = (await import(file)) as Impl;
}

const loadBefore = loadavg();
const results: Record<string, { after: Run; stepped: Run; before?: Run }> = {};
for (const [name, s] of Object.entries(SCENARIOS)) {
  const after = await run(current, s.calls, reps);
  const stepped = await run(current, s.calls, reps, true);
  results[name] = { after, stepped };
  if (before && s.before) results[name].before = await run(before, s.calls, beforeReps);
  process.stderr.write(`${name}: done\n`);
}

const result = {
  bench: "data-flow-worst-case",
  machine: machine(),
  at: new Date().toISOString(),
  command: `npx tsx bench/data-flow-worst-case.ts ${process.argv.slice(2).join(" ")}`.trim(),
  code,
  loadavg: { before: loadBefore, after: loadavg() },
  reps,
  beforeReps,
  beforeRef,
  defaults: current.DATA_FLOW_DEFAULTS,
  scenarios: Object.fromEntries(
    Object.entries(SCENARIOS).map(([k, s]) => [
      k,
      { calls: s.calls.length, valuesInLastCall: Object.keys(s.calls.at(-1)!.args).length },
    ]),
  ),
  results,
};
const path = writeResult("data-flow-worst-case", result);
const f = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
const rows: string[][] = [];
for (const [name, r] of Object.entries(results)) {
  for (const [which, x] of [
    ["before", r.before],
    ["after", r.after],
    ["stepped", r.stepped],
  ] as const) {
    if (!x) continue;
    rows.push([
      `${name}, ${which}`,
      "every call",
      String(x.call.n),
      f(x.call.p50),
      f(x.call.p95),
      f(x.call.p99),
      f(x.call.max),
    ]);
    rows.push([
      `${name}, ${which}`,
      "every call, CPU",
      String(x.callCpu.n),
      f(x.callCpu.p50),
      f(x.callCpu.p95),
      f(x.callCpu.p99),
      f(x.callCpu.max),
    ]);
    rows.push([
      `${name}, ${which}`,
      "the 256-value call",
      String(x.matching.n),
      f(x.matching.p50),
      f(x.matching.p95),
      f(x.matching.p99),
      f(x.matching.max),
    ]);
    rows.push([
      `${name}, ${which}`,
      "the 256-value call, CPU",
      String(x.matchingCpu.n),
      f(x.matchingCpu.p50),
      f(x.matchingCpu.p95),
      f(x.matchingCpu.p99),
      f(x.matchingCpu.max),
    ]);
    if (x.slice && x.sliceCpu) {
      rows.push([
        `${name}, ${which}`,
        "a slice on the loop",
        String(x.slice.n),
        f(x.slice.p50),
        f(x.slice.p95),
        f(x.slice.p99),
        f(x.slice.max),
      ]);
      rows.push([
        `${name}, ${which}`,
        "a slice on the loop, CPU",
        String(x.sliceCpu.n),
        f(x.sliceCpu.p50),
        f(x.sliceCpu.p95),
        f(x.sliceCpu.p99),
        f(x.sliceCpu.max),
      ]);
    }
    rows.push([
      `${name}, ${which}`,
      "event-loop delay",
      "–",
      f(x.loopDelay.p50),
      "–",
      f(x.loopDelay.p99),
      f(x.loopDelay.max),
    ]);
  }
}
const notes = Object.entries(results)
  .map(
    ([name, r]) =>
      `- ${name}: dependsOn ${JSON.stringify(r.after.dependsOn)}${r.after.work ? `, work ${r.after.work.work} units${r.after.work.truncated ? " (cap reached: older steps not examined)" : ""}` : ""}${r.before ? `; before: dependsOn ${JSON.stringify(r.before.dependsOn)}` : ""}`,
  )
  .join("\n");
const md = `# Data-flow matching: worst case\n\n\`${result.command}\` on ${code}. ${result.machine}; load average ${loadBefore.map((x) => x.toFixed(2)).join(", ")} before, ${result.loadavg.after.map((x) => x.toFixed(2)).join(", ")} after. After: ${reps} repetitions of each sequence${before ? `; before (data-flow.ts at ${beforeRef}): ${beforeReps}` : ""}. Per call: dependencies, then the call's output extracted and indexed, as the recorder did (after) and does now (stepped: the indexing in slices of ${SLICE_MS} ms with a turn of the event loop between; "every call" is then the sum of its slices). Times in ms.\n\n${markdownTable(["scenario", "measure (ms)", "n", "p50", "p95", "p99", "max"], rows)}\n\n${notes}\n`;
writeFileSync(path.replace(/\.json$/, ".md"), md);
process.stdout.write(md);
