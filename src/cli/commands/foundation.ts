/** init, migrate, import, stats. */
import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { respell, respellAll } from "../../formats/advice.ts";
import { type Command, EXIT, UsageError } from "../command.ts";
import { inputSource } from "../input.ts";
import { Progress, table } from "../output.ts";

export const initCommand: Command = {
  name: "init",
  summary: "create the database (embedded by default) and an example catalog file",
  usage: "toolgraph init [--example FILE]",
  examples: ["toolgraph init", "toolgraph init --database postgres://localhost/toolgraph"],
  options: { example: { type: "string" } },
  optionHelp: { "--example FILE": "also write an example catalog to FILE" },
  async run(ctx) {
    const tg = await ctx.open();
    try {
      const s = await tg.stats();
      const example = ctx.values.example as string | undefined;
      if (example) {
        if (existsSync(example)) throw new UsageError(`--example: ${example} exists already; choose another path`);
        writeFileSync(
          example,
          `${JSON.stringify(
            {
              tools: [
                { id: "fs.read", name: "readFile", description: "Read a file from disk", tags: ["files"] },
                { id: "fs.write", name: "writeFile", description: "Write text to a file", tags: ["files"] },
              ],
              capabilities: [
                {
                  id: "edit-file",
                  name: "Edit a file",
                  description: "read then write a file",
                  tools: ["fs.read", "fs.write"],
                },
              ],
            },
            null,
            2,
          )}\n`,
        );
      }
      if (ctx.json)
        ctx.out(
          JSON.stringify({
            ok: true,
            backend: s.backend,
            location: s.location,
            example: example ? resolve(example) : null,
          }),
        );
      else
        ctx.out(
          `toolgraph database ready (${s.backend}: ${s.location})${example ? `; example catalog written to ${example}` : ""}`,
        );
      return EXIT.ok;
    } finally {
      await tg.close();
    }
  },
};

export const migrateCommand: Command = {
  name: "migrate",
  summary: "run the database migrations (they also run on every open)",
  usage: "toolgraph migrate",
  examples: ["toolgraph migrate", "DATABASE_URL=postgres://127.0.0.1/test toolgraph migrate"],
  async run(ctx) {
    const tg = await ctx.open();
    try {
      if (ctx.json) ctx.out(JSON.stringify({ ok: true, backend: tg.database().backend }));
      else ctx.out(`migrations up to date (${tg.database().backend}: ${tg.database().location})`);
      return EXIT.ok;
    } finally {
      await tg.close();
    }
  },
};

export const importCommand: Command = {
  name: "import",
  remote: true,
  summary: "import a catalog (JSON), traces (JSONL) or declared edges (JSONL)",
  usage: "toolgraph import catalog|traces|edges FILE|- [--skip-invalid] [--auto-register]",
  examples: [
    "toolgraph import catalog tools.json",
    "toolgraph import traces runs.jsonl --auto-register",
    "toolgraph import edges known-dependencies.jsonl --skip-invalid",
    "curl -s https://example.com/runs.jsonl | toolgraph import traces -",
  ],
  options: {
    "skip-invalid": { type: "boolean", default: false },
    "auto-register": { type: "boolean", default: false },
  },
  optionHelp: {
    "--skip-invalid": "skip and report bad records instead of rolling the whole file back",
    "--auto-register": "traces: register tools and capabilities that the catalog does not have",
  },
  async run(ctx) {
    const [kind, file] = ctx.positionals;
    if (!kind || !["catalog", "traces", "edges"].includes(kind))
      throw new UsageError("import: the first argument must be catalog, traces or edges");
    const src = inputSource(file, `import ${kind}`, ctx.stdin);
    const input = "text" in src ? src.text : src;
    const skipInvalid = Boolean(ctx.values["skip-invalid"]);
    const tg = await ctx.open();
    try {
      if (kind === "catalog") {
        const progress = new Progress("embedding tools");
        const r = await tg.importCatalog(input, { onProgress: (d: number, t: number) => progress.update(d, t) });
        progress.done();
        if (ctx.json) ctx.out(JSON.stringify(r));
        else if (r.embeddedNow > 0 || r.tools.inserted + r.tools.updated > 0) {
          // Embeddings are stored batch by batch, so an interrupted import resumes where it stopped.
          const total = r.tools.inserted + r.tools.updated + r.tools.unchanged;
          ctx.err(
            `embedded ${r.embeddedNow} tool texts now; ${Math.max(0, total - r.embeddedNow)} were stored already (an interrupted import resumes)`,
          );
        }
        if (!ctx.json)
          ctx.out(
            table(
              ["", "inserted", "updated", "unchanged"],
              [
                ["tools", r.tools.inserted, r.tools.updated, r.tools.unchanged],
                ["capabilities", r.capabilities.inserted, r.capabilities.updated, r.capabilities.unchanged],
              ],
            ),
          );
      } else if (kind === "traces") {
        const r = await tg.importTraces(input, { skipInvalid, autoRegister: Boolean(ctx.values["auto-register"]) });
        const { insertedIds: _ids, ...rest } = r;
        if (ctx.json) ctx.out(JSON.stringify({ ...rest, invalid: respellAll(r.invalid, "cli") }));
        else {
          ctx.out(
            `${r.inserted} executions imported (${r.steps} steps, ${r.edgesTouched} edges touched), ${r.skippedExisting} already present`,
          );
          if (r.autoRegistered.length > 0)
            ctx.out(`auto-registered ${r.autoRegistered.length} tools: ${r.autoRegistered.slice(0, 10).join(", ")}`);
          for (const e of r.invalid)
            ctx.err(
              `skipped ${e.file}:${e.line}: ${e.field ? `${e.field}: ` : ""}${respell(e.message, e.advice, "cli")}`,
            );
        }
      } else {
        const r = await tg.importEdges(input, { skipInvalid });
        if (ctx.json) ctx.out(JSON.stringify(r));
        else {
          ctx.out(`${r.edges} declared edges imported`);
          for (const e of r.invalid)
            ctx.err(
              `skipped ${e.file}:${e.line}: ${e.field ? `${e.field}: ` : ""}${respell(e.message, e.advice, "cli")}`,
            );
        }
      }
      return EXIT.ok;
    } finally {
      await tg.close();
    }
  },
};

export const statsCommand: Command = {
  name: "stats",
  remote: true,
  readOnly: true,
  summary: "counts of tools, capabilities, edges, executions of the project, and the learned weights in force",
  usage: "toolgraph stats",
  examples: ["toolgraph stats", "toolgraph stats --project acme --json"],
  async run(ctx) {
    const tg = await ctx.open();
    try {
      const s = await tg.stats();
      if (ctx.json) ctx.out(JSON.stringify(s));
      else {
        ctx.out(`project ${s.project} on ${s.backend} (${s.location}), graph version ${s.graphVersion}`);
        ctx.out(
          table(
            ["tools", "capabilities", "edges", "executions", "steps", "embeddings", "users"],
            [[s.tools, s.capabilities, s.edges, s.executions, s.steps, s.embeddings, s.users]],
          ),
        );
        const w = (o: object) =>
          Object.entries(o)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ");
        const fitLine = (f: { fittedAt: string; accepted: boolean; reason: string } | null, dflt: string) =>
          f ? `fitted ${f.fittedAt}, ${f.accepted ? "in use" : `${dflt} kept`}: ${f.reason}` : "never fitted";
        const l = s.learning;
        ctx.out(`search weights: ${w(l.searchWeights.inForce)} (${fitLine(l.searchWeights.fit, "defaults")})`);
        ctx.out(
          `next-step weights: ${w(l.nextStepWeights.inForce)} (${fitLine(l.nextStepWeights.fit, "seed weights")})`,
        );
        ctx.out(`calibration: ${l.calibration.kinds.length > 0 ? l.calibration.kinds.join(", ") : "none"}`);
      }
      return EXIT.ok;
    } finally {
      await tg.close();
    }
  },
};
