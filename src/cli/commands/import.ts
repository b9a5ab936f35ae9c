/** `toolgraph import catalog|traces|edges`: files into the project. */
import { respell, respellAll } from "../../formats/advice.ts";
import { type Command, EXIT, UsageError } from "../command.ts";
import { inputSource } from "../input.ts";
import { Progress, table } from "../output.ts";

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
