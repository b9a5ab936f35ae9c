/**
 * The test suite on a busy machine (the requirement: the suite must pass on a busy 2-core machine).
 *
 *   npx tsx bench/suite-under-load.ts [--busy 4] [--out suite-under-load]
 *
 * Starts `--busy` CPU-bound processes (`node -e "for(;;){}"`, normal priority), runs the README's test command
 * (`npx vitest run`, with a JSON report) while sampling the 1-minute load average every 15 s, stops the busy
 * processes, and writes bench/results/<out>.json: passed / failed / skipped, wall time, the load samples
 * (min / median / max), every failed test with its duration, and the ten slowest tests. Whatever else runs on
 * the machine adds to the load and is recorded in the samples, not controlled: read the load, not the busy count.
 * Exits with vitest's status.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import config from "../vitest.config.ts";

const { values } = parseArgs({
  options: {
    busy: { type: "string", default: "4" },
    out: { type: "string", default: "suite-under-load" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  console.log("Usage: npx tsx bench/suite-under-load.ts [--busy 4] [--out suite-under-load]");
  process.exit(0);
}
const busy = Number(values.busy);
if (!Number.isInteger(busy) || busy < 0 || busy > 64)
  throw new Error(`--busy must be an integer in 0..64, got ${values.busy}`);

interface AssertionResult {
  fullName: string;
  status: string;
  duration?: number | null;
}
interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { name: string; assertionResults: AssertionResult[] }[];
}

const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "tg-suite-load-"));
const reportFile = join(dir, "report.json");
const loops = Array.from({ length: busy }, () => spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
const samples: number[] = [loadavg()[0]!];
const sampler = setInterval(() => samples.push(loadavg()[0]!), 15_000);
const startedAt = new Date();
const t0 = performance.now();
const status = await new Promise<number>((resolve) => {
  const child = spawn("npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${reportFile}`], {
    cwd: root,
    stdio: "inherit",
  });
  child.on("exit", (code) => resolve(code ?? 1));
});
const wallSeconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
samples.push(loadavg()[0]!);
for (const l of loops) l.kill();

const report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
rmSync(dir, { recursive: true, force: true });
const tests = report.testResults.flatMap((f) =>
  f.assertionResults.map((a) => ({
    file: f.name.replace(`${root}/`, ""),
    test: a.fullName,
    status: a.status,
    seconds: (a.duration ?? 0) / 1000,
  })),
);
const sorted = [...samples].sort((a, b) => a - b);
const result = {
  bench: "suite-under-load",
  command: `npx tsx bench/suite-under-load.ts --busy ${busy}`,
  machine: `${process.platform} ${process.arch}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM (${Math.round(freemem() / 2 ** 30)} free), Node ${process.version}`,
  date: startedAt.toISOString(),
  commit: execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim(),
  busyProcesses: busy,
  load: {
    samples: samples.length,
    min: sorted[0]!,
    median: sorted[Math.floor(sorted.length / 2)]!,
    max: sorted[sorted.length - 1]!,
  },
  wallSeconds,
  passed: report.numPassedTests,
  failed: report.numFailedTests,
  skipped: report.numPendingTests + report.numTodoTests,
  testTimeoutSeconds: (config.test?.testTimeout ?? 5000) / 1000,
  failures: tests.filter((t) => t.status === "failed").map(({ file, test, seconds }) => ({ file, test, seconds })),
  slowest: tests
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 10)
    .map(({ file, test, seconds }) => ({ file, test, seconds })),
};
writeFileSync(join(root, "bench", "results", `${values.out}.json`), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `suite under load: ${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped in ${wallSeconds.toFixed(0)} s; 1-min load ${result.load.min.toFixed(1)}–${result.load.max.toFixed(1)} (median ${result.load.median.toFixed(1)})`,
);
process.exit(status);
