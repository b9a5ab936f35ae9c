/** `toolgraph init` and `toolgraph migrate`: the database, created or brought up to date. */
import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, EXIT, UsageError } from "../command.ts";

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
