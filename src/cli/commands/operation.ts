/**
 * The CLI command of an operation of the table that has no command written by hand: its flags are the
 * table's spelling, each value read by the type of its request field (the job's schema), the answer printed
 * as the MCP text summary (or JSON with --json). The request is validated once, by the library.
 */
import type { z } from "zod";
import type { Operation } from "../../contract/operations.ts";
import { type Command, type CommandContext, EXIT, type OptionSpec, UsageError } from "../command.ts";

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The base type of a request field: "string", "number", "boolean", "array", "object", "enum", … */
function fieldKind(t: z.ZodType | undefined): string | undefined {
  let d = t as unknown as { _zod?: { def?: { type?: string; innerType?: unknown; in?: unknown } } } | undefined;
  for (let i = 0; i < 8 && d; i++) {
    const def = d._zod?.def;
    if (!def) return undefined;
    if (
      def.type === "optional" ||
      def.type === "nullable" ||
      def.type === "default" ||
      def.type === "prefault" ||
      def.type === "readonly"
    )
      d = def.innerType as typeof d;
    else if (def.type === "pipe") d = def.in as typeof d;
    else return def.type;
  }
  return undefined;
}

/** A flag's text read as its field's type. */
function flagValue(kind: string | undefined, flag: string, text: string): unknown {
  if (kind === "number" || kind === "int") {
    const n = Number(text);
    if (text.trim() === "" || !Number.isFinite(n))
      throw new UsageError(`--${flag} must be a number, got ${JSON.stringify(text)}`);
    return n;
  }
  if (kind === "array") {
    return text
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean);
  }
  if (kind === "object" || kind === "record") {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new UsageError(`--${flag} must be JSON: ${(e as Error).message}`);
    }
  }
  return text;
}

/** The request a command line spells, from the operation's flags and its job's request schema. */
export function requestFromCommandLine(
  op: Operation,
  schema: z.ZodType,
  ctx: Pick<CommandContext, "values" | "positionals">,
): Record<string, unknown> {
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  const req: Record<string, unknown> = {};
  const positional = op.cli.positional;
  if (positional !== undefined && ctx.positionals.length > 0) {
    const kind = fieldKind(shape[positional]);
    req[positional] = kind === "array" ? [...ctx.positionals] : ctx.positionals.join(" ");
  } else if (ctx.positionals.length > 0)
    throw new UsageError(`unexpected argument ${JSON.stringify(ctx.positionals[0])}`);
  for (const [flag, spec] of Object.entries(op.cli.options ?? {})) {
    const field = camel(flag);
    const v = ctx.values[flag];
    if (v === undefined) {
      // An absent switch is false where the request requires the field (feedback's --success).
      if (spec.boolean && shape[field] !== undefined && !shape[field].safeParse(undefined).success) req[field] = false;
      continue;
    }
    req[field] = spec.boolean ? Boolean(v) : flagValue(fieldKind(shape[field]), flag, String(v));
  }
  return req;
}

export function operationCommand(op: Operation): Command {
  const options: OptionSpec = {};
  const optionHelp: Record<string, string> = {};
  for (const [flag, spec] of Object.entries(op.cli.options ?? {})) {
    options[flag] = { type: spec.boolean ? "boolean" : "string" };
    optionHelp[spec.boolean ? `--${flag}` : `--${flag} ${flag.toUpperCase().replace(/-/g, "_")}`] = spec.help;
  }
  const positional = op.cli.positional === undefined ? "" : ` ${op.cli.positional.toUpperCase()}`;
  const flags = Object.entries(op.cli.options ?? {})
    .map(([f, s]) => (s.boolean ? `[--${f}]` : `[--${f} ${f.toUpperCase().replace(/-/g, "_")}]`))
    .join(" ");
  return {
    name: op.cli.command,
    summary: op.summary.charAt(0).toLowerCase() + op.summary.slice(1),
    usage: `toolgraph ${op.cli.command}${positional}${flags ? ` ${flags}` : ""}`,
    examples: [...(op.cli.examples ?? [])],
    options,
    optionHelp,
    readOnly: op.readOnly,
    remote: true,
    async run(ctx) {
      const job = await op.load();
      const req = requestFromCommandLine(op, job.request, ctx);
      // A query text is embedded while the database opens (the model loads on its own thread meanwhile).
      const intent = (req as { intent?: unknown }).intent;
      const tg = await ctx.open(typeof intent === "string" ? { warmQueries: [intent] } : {});
      try {
        const result = await tg.run(op, req);
        if (ctx.json) ctx.out(JSON.stringify(result, null, 2));
        else {
          const { summarize } = await import("../../mcp/summary.ts");
          ctx.out(summarize(op.mcp.headline(req), result as Record<string, unknown>));
        }
        return EXIT.ok;
      } finally {
        await tg.close();
      }
    },
  };
}
