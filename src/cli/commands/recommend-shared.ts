/** What the recommending commands share: gate and cap flags, the gated table, opening the library. */
import { fieldOf } from "../../formats/issues.ts";
import { parseJsonText } from "../../formats/json-text.ts";
import { type CommandContext, type OptionSpec, UsageError } from "../command.ts";
import { Progress, table } from "../output.ts";

export const list = (v: unknown): string[] | undefined =>
  typeof v === "string" && v.length > 0
    ? v
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean)
    : undefined;

export const num = (v: unknown, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got ${JSON.stringify(v)}`);
  return n;
};

export const GATE_OPTIONS: OptionSpec = {
  user: { type: "string" },
  production: { type: "boolean", default: false },
  critical: { type: "boolean", default: false },
  urgency: { type: "string" },
  workflow: { type: "string" },
  limit: { type: "string" },
};
export const GATE_HELP: Record<string, string> = {
  "--limit N": "number of answers (default 5 or 10)",
  "--user ID": "the user the answer is for (their history moves the threshold)",
  "--production, --critical": "production environment / critical task (stricter gate)",
  "--urgency low|medium|high": "task urgency (high relaxes the gate)",
  "--workflow JSON":
    'the running workflow, e.g. \'{"id":"w1","steps":[{"tool":"a","success":false}],"replans":3}\' (its health moves the gate)',
  "--explain": "print the reasoning report of the top answer",
};
export const CAP_OPTIONS: OptionSpec = {
  "exclude-safety": { type: "string" },
  "max-tools": { type: "string" },
  "max-latency-ms": { type: "string" },
  "max-cost": { type: "string" },
};
export const CAP_HELP: Record<string, string> = {
  "--exclude-safety TAGS": "never return tools with these safety tags (comma-separated, e.g. destructive,network)",
  "--max-tools N, --max-latency-ms MS, --max-cost C": "caps; an answer over budget is trimmed and says what it dropped",
};

export function gateFields(ctx: CommandContext) {
  // Enumerations and ranges are checked once, by the request schema (the api), as on every other door.
  const urgency = ctx.values.urgency as string | undefined;
  return {
    user: ctx.values.user as string | undefined,
    environment:
      ctx.values.production || ctx.values.critical
        ? { production: Boolean(ctx.values.production), critical: Boolean(ctx.values.critical) }
        : undefined,
    urgency: urgency as "low" | "medium" | "high" | undefined,
    workflow: workflowArg(ctx.values.workflow as string | undefined),
    limit: num(ctx.values.limit, "limit"),
    explain: Boolean(ctx.values.explain),
  };
}

/** --workflow JSON: parsed here (parseJsonText, depth-bounded), validated by the request schema like every other field. */
export function workflowArg(v: string | undefined): { steps: { tool: string; success?: boolean }[] } | undefined {
  if (v === undefined) return undefined;
  const parsed = parseJsonText(v);
  if (parsed.ok) return parsed.value as { steps: { tool: string; success?: boolean }[] };
  const field = fieldOf(parsed.problem.path);
  throw new UsageError(`--workflow must be JSON: ${field ? `${field}: ` : ""}${parsed.problem.message}`);
}

export function capFields(ctx: CommandContext) {
  return {
    excludeSafetyTags: list(ctx.values["exclude-safety"]),
    maxTools: num(ctx.values["max-tools"], "max-tools"),
    maxLatencyMs: num(ctx.values["max-latency-ms"], "max-latency-ms"),
    maxCost: num(ctx.values["max-cost"], "max-cost"),
  };
}

export function strip<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export type Result = { [k: string]: unknown };

export function printGated(ctx: CommandContext, r: Result, rows: (string | number)[][], headers: string[]): void {
  ctx.out(table(headers, rows));
  const th = r.threshold as { adjusted: number; reasoning: string } | undefined;
  if (th) ctx.out(`\nthreshold ${th.adjusted.toFixed(2)}: ${th.reasoning}`);
  if (r.abstained)
    ctx.out(
      `abstained: ${r.reason}${(r.fallbacks as string[] | undefined)?.length ? ` — fallbacks: ${(r.fallbacks as string[]).join(", ")}` : ""}`,
    );
  const report = r.report as { text: string } | undefined;
  if (ctx.values.explain && report) ctx.out(`\n${report.text}`);
}

export async function withTg(
  ctx: CommandContext,
  fn: (tg: Awaited<ReturnType<CommandContext["open"]>>) => Promise<number>,
  opts: { searchIndex?: boolean; warmQueries?: readonly string[] } = {},
): Promise<number> {
  // The request's query text is embedded while the database opens (the model loads on its thread meanwhile).
  const tg = await ctx.open(opts.warmQueries ? { warmQueries: opts.warmQueries } : {});
  try {
    // Through a server, the server embeds what it lacks itself.
    if (opts.searchIndex && !("remote" in tg)) await embedMissing(tg);
    return await fn(tg);
  } finally {
    await tg.close();
  }
}

/**
 * Tool texts without a stored embedding (an interrupted `import catalog`) are embedded before the answer,
 * with a progress bar (rate, ETA) on a terminal instead of a silent wait; the stored batches make it resume.
 */
export async function embedMissing(tg: Awaited<ReturnType<CommandContext["open"]>>): Promise<void> {
  const progress = new Progress("embedding tool texts not embedded yet");
  await tg.prepareSearch({ onProgress: (d, t) => progress.update(d, t) });
  progress.done();
}

export const decisionMark = (d: string) => (d === "accepted" ? "✓" : d === "accepted-with-caution" ? "~" : "✗");
