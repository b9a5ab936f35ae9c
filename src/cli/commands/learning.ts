/** record, learn-weights, calibrate. */
import { fieldOf } from "../../formats/issues.ts";
import { parseJsonText } from "../../formats/json-text.ts";
import { type Command, EXIT } from "../command.ts";
import { inputSource, inputText } from "../input.ts";
import { fmtNum, table } from "../output.ts";
import { num, strip, withTg } from "./recommend-shared.ts";

/** One JSON object (possibly over several lines), read like every import (parseJsonText): bad text names its line. */
async function oneExecution(text: string, file: string): Promise<object> {
  const parsed = parseJsonText(text);
  // A text starting with "{" that parses is an object; the facade validates it.
  if (parsed.ok) return parsed.value as object;
  const p = parsed.problem;
  const line = text.slice(0, p.index).split("\n").length;
  const { ImportError } = await import("../../formats/parse.ts"); // not loaded by --help
  throw new ImportError([{ file, line, field: fieldOf(p.path), message: p.message }]);
}

export const recordCommand: Command = {
  name: "record",
  remote: true,
  summary: "record executions (a JSON object, or JSONL with one execution per line) and learn from them",
  usage: "toolgraph record FILE|- [--auto-register]",
  examples: [
    "toolgraph record run.json",
    "toolgraph record runs.jsonl --auto-register --json",
    "my-agent --trace | toolgraph record -",
  ],
  options: { "auto-register": { type: "boolean", default: false } },
  optionHelp: { "--auto-register": "register tools the catalog does not have" },
  async run(ctx) {
    const src = inputSource(ctx.positionals[0], "record", ctx.stdin);
    const text = inputText(src).trim();
    return withTg(ctx, async (tg) => {
      const autoRegister = Boolean(ctx.values["auto-register"]);
      let r: { inserted: number; skippedExisting: number; graphVersion: number };
      if (text.startsWith("{") && !text.includes("\n{"))
        r = await tg.recordExecution(await oneExecution(text, "file" in src ? src.file : "stdin"), { autoRegister });
      else r = await tg.importTraces("file" in src ? src : text, { autoRegister });
      if (ctx.json)
        ctx.out(
          JSON.stringify({ inserted: r.inserted, skippedExisting: r.skippedExisting, graphVersion: r.graphVersion }),
        );
      else
        ctx.out(
          `${r.inserted} execution(s) recorded, ${r.skippedExisting} already present; graph version ${r.graphVersion}`,
        );
      return EXIT.ok;
    });
  },
};

export const learnWeightsCommand: Command = {
  name: "learn-weights",
  summary:
    "fit the next-step weights and the search weights on the project's own traces; each replaces the default only when it is better on held-out requests",
  usage: "toolgraph learn-weights [--max-executions N] [--dry-run]",
  examples: [
    "toolgraph learn-weights",
    "toolgraph learn-weights --dry-run",
    "toolgraph learn-weights --max-executions 5000 --json",
  ],
  options: { "max-executions": { type: "string" }, "dry-run": { type: "boolean", default: false } },
  optionHelp: {
    "--max-executions N": "most recent executions used for training (default 2000)",
    "--dry-run": "show what the fit would change, store nothing",
  },
  async run(ctx) {
    return withTg(ctx, async (tg) => {
      const dryRun = Boolean(ctx.values["dry-run"]);
      const r = await tg.fitNextStepWeights(
        strip({ maxExecutions: num(ctx.values["max-executions"], "max-executions"), dryRun }),
      );
      const sw = await tg.fitSearchWeights({ dryRun });
      if (ctx.json) ctx.out(JSON.stringify({ ...r, search: sw }));
      else {
        const verb = dryRun ? "would be" : "are";
        const fmtW = (w: object) =>
          Object.entries(w)
            .map(([k, v]) => `${k} ${fmtNum(v as number)}`)
            .join(", ");
        const sBefore = sw.record?.before as object | undefined;
        const sNow = {
          beta: sw.beta,
          memoryWeight: sw.memoryWeight,
          contentWeight: sw.contentWeight,
          graphWeight: sw.graphWeight,
        };
        ctx.out(
          `search: fusion β ${sw.beta}, memory weight μ ${sw.memoryWeight}, content weight ${sw.contentWeight}, graph weight ${sw.graphWeight}, history guard ${sw.historyGuard} ${verb} in force (${sw.accepted ? "fitted" : "defaults"}; ${sw.intents} past intents, ${sw.groups} intent groups)`,
        );
        if (sBefore) ctx.out(`  before: ${fmtW(sBefore)} → after: ${fmtW(sNow)}`);
        if (sw.candidate && !sw.accepted) ctx.out(`  the fit chose ${fmtW(sw.candidate)}, not used`);
        if (sw.reason) ctx.out(`  why: ${sw.reason}`);
        ctx.out(
          `next step: ${fmtW(r.weights)} ${verb} in force (${r.accepted ? "learned" : "seed"}; ${r.examples} examples)`,
        );
        ctx.out(`  before: ${fmtW(r.record.before as object)} → after: ${fmtW(r.weights)}`);
        if (!r.accepted) ctx.out(`  learned ${fmtW(r.candidate)}, not used`);
        ctx.out(`  why: ${r.reason}`);
      }
      return EXIT.ok;
    });
  },
};

export const calibrateCommand: Command = {
  name: "calibrate",
  summary: "fit the gate's calibration (score → probability of success) on the project's own traces",
  usage: "toolgraph calibrate [--max-executions N]",
  examples: ["toolgraph calibrate", "toolgraph calibrate --json"],
  options: { "max-executions": { type: "string" } },
  optionHelp: { "--max-executions N": "most recent executions replayed (default 1000)" },
  async run(ctx) {
    return withTg(ctx, async (tg) => {
      const r = await tg.calibrate(strip({ maxExecutions: num(ctx.values["max-executions"], "max-executions") }));
      if (ctx.json) ctx.out(JSON.stringify(r));
      else
        ctx.out(
          table(
            ["kind", "pairs", "raw precision ≥ 0.85", "blocks"],
            r.map((x) => [x.kind, x.pairs, x.rawHighPrecision === null ? "–" : fmtNum(x.rawHighPrecision), x.blocks]),
          ),
        );
      return EXIT.ok;
    });
  },
};
