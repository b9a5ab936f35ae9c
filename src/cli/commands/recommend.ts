/** search, next, capabilities, discover, dag, plan, alternatives, record, learn-weights. */
import { fieldOf } from "../../formats/issues.ts";
import { parseJsonText } from "../../formats/json-text.ts";
import { type Command, type CommandContext, EXIT, type OptionSpec, UsageError } from "../command.ts";
import { inputSource, inputText } from "../input.ts";
import { fmtNum, Progress, table } from "../output.ts";

const list = (v: unknown): string[] | undefined =>
  typeof v === "string" && v.length > 0
    ? v
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean)
    : undefined;

const num = (v: unknown, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got ${JSON.stringify(v)}`);
  return n;
};

const GATE_OPTIONS: OptionSpec = {
  user: { type: "string" },
  production: { type: "boolean", default: false },
  critical: { type: "boolean", default: false },
  urgency: { type: "string" },
  workflow: { type: "string" },
  limit: { type: "string" },
};
const GATE_HELP: Record<string, string> = {
  "--limit N": "number of answers (default 5 or 10)",
  "--user ID": "the user the answer is for (their history moves the threshold)",
  "--production, --critical": "production environment / critical task (stricter gate)",
  "--urgency low|medium|high": "task urgency (high relaxes the gate)",
  "--workflow JSON":
    'the running workflow, e.g. \'{"id":"w1","steps":[{"tool":"a","success":false}],"replans":3}\' (its health moves the gate)',
  "--explain": "print the reasoning report of the top answer",
};
const CAP_OPTIONS: OptionSpec = {
  "exclude-safety": { type: "string" },
  "max-tools": { type: "string" },
  "max-latency-ms": { type: "string" },
  "max-cost": { type: "string" },
};
const CAP_HELP: Record<string, string> = {
  "--exclude-safety TAGS": "never return tools with these safety tags (comma-separated, e.g. destructive,network)",
  "--max-tools N, --max-latency-ms MS, --max-cost C": "caps; an answer over budget is trimmed and says what it dropped",
};

function gateFields(ctx: CommandContext) {
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
function workflowArg(v: string | undefined): { steps: { tool: string; success?: boolean }[] } | undefined {
  if (v === undefined) return undefined;
  const parsed = parseJsonText(v);
  if (parsed.ok) return parsed.value as { steps: { tool: string; success?: boolean }[] };
  const field = fieldOf(parsed.problem.path);
  throw new UsageError(`--workflow must be JSON: ${field ? `${field}: ` : ""}${parsed.problem.message}`);
}

function capFields(ctx: CommandContext) {
  return {
    excludeSafetyTags: list(ctx.values["exclude-safety"]),
    maxTools: num(ctx.values["max-tools"], "max-tools"),
    maxLatencyMs: num(ctx.values["max-latency-ms"], "max-latency-ms"),
    maxCost: num(ctx.values["max-cost"], "max-cost"),
  };
}

function strip<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

type Result = { [k: string]: unknown };

function printGated(ctx: CommandContext, r: Result, rows: (string | number)[][], headers: string[]): void {
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

async function withTg(
  ctx: CommandContext,
  fn: (tg: Awaited<ReturnType<CommandContext["open"]>>) => Promise<number>,
  opts: { searchIndex?: boolean } = {},
): Promise<number> {
  const tg = await ctx.open();
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
async function embedMissing(tg: Awaited<ReturnType<CommandContext["open"]>>): Promise<void> {
  if ((await tg.engine.snapshot(tg.project)).n === 0) return;
  const progress = new Progress("embedding tool texts not embedded yet");
  await tg.engine.searchIndex(tg.project, (d, t) => progress.update(d, t));
  progress.done();
}

const decisionMark = (d: string) => (d === "accepted" ? "✓" : d === "accepted-with-caution" ? "~" : "✗");

export const searchCommand: Command = {
  name: "search",
  remote: true,
  readOnly: true,
  summary: "find tools for an intent (hybrid semantic + graph score, gated and explained)",
  usage:
    'toolgraph search "INTENT" [--context a,b] [--limit N] [--exclude t1,t2] [--only t] [--routing flat|two-hop|auto] [--explain]',
  examples: [
    'toolgraph search "open a pull request"',
    'toolgraph search "push the branch" --context git.commit --explain',
    'toolgraph search "delete old files" --exclude-safety destructive --json',
    'toolgraph search "create an invoice" --routing two-hop',
  ],
  options: {
    context: { type: "string" },
    exclude: { type: "string" },
    only: { type: "string" },
    routing: { type: "string" },
    ...GATE_OPTIONS,
    ...CAP_OPTIONS,
  },
  optionHelp: {
    "--context a,b": "tools already in the workflow (graph context)",
    "--exclude a,b": "tools never returned",
    "--only a": "manual override: force these tools first",
    "--routing flat|two-hop|auto":
      "flat searches every tool; two-hop ranks namespaces (server or id prefix) first, then searches their tools; auto (default) is flat below 20,000 tools or 100 namespaces, else the route measured faster at equal top 10 on the first queries",
    ...GATE_HELP,
    ...CAP_HELP,
  },
  async run(ctx) {
    const intent = ctx.positionals.join(" ").trim();
    if (!intent) throw new UsageError('search: the intent is missing, e.g. toolgraph search "send an email"');
    const routing = ctx.values.routing as string | undefined;
    return withTg(
      ctx,
      async (tg) => {
        const r = await tg.search(
          strip({
            intent,
            context: list(ctx.values.context),
            exclude: list(ctx.values.exclude),
            only: list(ctx.values.only),
            routing: routing as "flat" | "two-hop" | "auto" | undefined,
            ...gateFields(ctx),
            ...capFields(ctx),
          }),
        );
        if (ctx.json) ctx.out(JSON.stringify(r));
        else {
          if (r.routing.mode === "two-hop") ctx.out(`${r.routing.explanation}\n`);
          printGated(
            ctx,
            r,
            r.results.map((x, i) => [
              i + 1,
              decisionMark(x.gate.decision),
              x.tool,
              fmtNum(x.score),
              fmtNum(x.breakdown.semantic),
              fmtNum(x.breakdown.graph),
              fmtNum(x.breakdown.alpha),
              ctx.values.explain ? x.explanation : x.description.slice(0, 60),
            ]),
            ["#", "", "tool", "score", "semantic", "graph", "α", ctx.values.explain ? "why" : "description"],
          );
        }
        return EXIT.ok;
      },
      { searchIndex: true },
    );
  },
};

export const nextCommand: Command = {
  name: "next",
  remote: true,
  readOnly: true,
  summary: "suggest the next tool after the tools run so far (co-occurrence, Louvain, recency, PageRank)",
  usage: "toolgraph next --context a,b [--intent TEXT] [--mode auto|seed|learned|markov] [--exclude t] [--limit N]",
  examples: [
    "toolgraph next --context git.commit",
    'toolgraph next --context monitor.get_alerts --intent "payments are failing" --explain',
    "toolgraph next --context git.status,git.diff --mode learned --json",
  ],
  options: {
    context: { type: "string" },
    exclude: { type: "string" },
    intent: { type: "string" },
    mode: { type: "string" },
    ...GATE_OPTIONS,
  },
  optionHelp: {
    "--context a,b": "successful tools so far, in order (required)",
    "--intent TEXT": "the workflow's intent (intent memory)",
    "--mode": "auto (default: learned weights once the project has enough traces), seed, learned or markov",
    "--exclude a,b": "failed or unavailable tools",
    ...GATE_HELP,
  },
  async run(ctx) {
    const context = list(ctx.values.context);
    if (!context) throw new UsageError("next: --context is required (the tools run so far)");
    const mode = ctx.values.mode as string | undefined;
    return withTg(ctx, async (tg) => {
      const r = await tg.suggestNext(
        strip({
          context,
          intent: ctx.values.intent as string | undefined,
          exclude: list(ctx.values.exclude),
          mode: mode as "seed" | undefined,
          ...gateFields(ctx),
        }),
      );
      if (ctx.json) ctx.out(JSON.stringify(r));
      else
        printGated(
          ctx,
          r,
          r.suggestions.map((x, i) => [
            i + 1,
            decisionMark(x.gate.decision),
            x.tool,
            fmtNum(x.confidence),
            fmtNum(x.terms.cooc.value),
            x.terms.community.value,
            fmtNum(x.terms.recency.value),
            fmtNum(x.terms.pagerank.value),
            fmtNum(x.memory),
          ]),
          ["#", "", "tool", "confidence", "cooc", "community", "recency", "pagerank", "memory"],
        );
      return EXIT.ok;
    });
  },
};

export const capabilitiesCommand: Command = {
  name: "capabilities",
  remote: true,
  readOnly: true,
  summary: "capabilities (named groups of tools) for an intent: semantic × reliability, pattern triggers, memory",
  usage: 'toolgraph capabilities "INTENT" [--limit N]',
  examples: [
    'toolgraph capabilities "deploy the release to production"',
    'toolgraph capabilities "roll back the deploy" --json',
  ],
  options: { ...GATE_OPTIONS },
  optionHelp: GATE_HELP,
  async run(ctx) {
    const intent = ctx.positionals.join(" ").trim();
    if (!intent) throw new UsageError("capabilities: the intent is missing");
    return withTg(
      ctx,
      async (tg) => {
        const r = await tg.matchCapabilities(strip({ intent, ...gateFields(ctx), explain: undefined }));
        if (ctx.json) ctx.out(JSON.stringify(r));
        else
          printGated(
            ctx,
            r,
            r.results.map((x, i) => [
              i + 1,
              decisionMark(x.gate.decision),
              x.capability,
              fmtNum(x.score),
              x.explanation,
            ]),
            ["#", "", "capability", "score", "why"],
          );
        return EXIT.ok;
      },
      { searchIndex: true },
    );
  },
};

export const discoverCommand: Command = {
  name: "discover",
  remote: true,
  readOnly: true,
  summary: "capabilities that fit the tools in use (overlap × spectral-cluster boost)",
  usage: "toolgraph discover --context a,b [--limit N]",
  examples: [
    "toolgraph discover --context git.status,git.diff",
    "toolgraph discover --context monitor.get_alerts --json",
  ],
  options: { context: { type: "string" }, ...GATE_OPTIONS },
  optionHelp: { "--context a,b": "tools in use (required)", ...GATE_HELP },
  async run(ctx) {
    const context = list(ctx.values.context);
    if (!context) throw new UsageError("discover: --context is required");
    return withTg(ctx, async (tg) => {
      const r = await tg.discoverCapabilities(strip({ context, ...gateFields(ctx), explain: undefined }));
      if (ctx.json) ctx.out(JSON.stringify(r));
      else
        printGated(
          ctx,
          r,
          r.results.map((x, i) => [i + 1, decisionMark(x.gate.decision), x.capability, fmtNum(x.score), x.explanation]),
          ["#", "", "capability", "score", "why"],
        );
      return EXIT.ok;
    });
  },
};

function printDag(ctx: CommandContext, r: Result): void {
  const layers = r.layers as string[][];
  layers.forEach((l, i) => {
    ctx.out(`layer ${i}: ${l.join("  |  ")}`);
  });
  for (const e of r.edges as { explanation: string }[]) ctx.out(`  ${e.explanation}`);
  for (const n of r.nodes as { root: boolean; reason: string; tool: string; dependents: string[] }[]) {
    if (n.root && n.dependents.length === 0) ctx.out(`  ${n.tool}: ${n.reason}`);
  }
  for (const d of (r.dropped as { explanation: string }[]) ?? []) ctx.out(`  ${d.explanation}`);
  for (const d of (r.removed as { tool: string; reason: string }[]) ?? []) ctx.out(`  removed ${d.tool}: ${d.reason}`);
  const t = r.timing as { wallTimeMs: number; sequentialMs: number; criticalPath: string[]; reason: string | null };
  if (t && !t.reason)
    ctx.out(
      `critical path ${t.criticalPath.join(" → ")}: ${fmtNum(t.wallTimeMs)} ms in parallel vs ${fmtNum(t.sequentialMs)} ms sequentially`,
    );
  const g = r.gate as { decision: string; threshold: number };
  ctx.out(`confidence ${fmtNum(r.confidence as number)}: ${g.decision} (threshold ${g.threshold.toFixed(2)})`);
}

const SCHEMA_EDGES_HELP =
  "also relate tools with no learned relation when one's outputSchema fits the other's required inputs (off by default)";

function schemaEdgesFlag(ctx: { values: Record<string, unknown> }): boolean | undefined {
  return ctx.values["schema-edges"] === true ? true : undefined;
}

export const dagCommand: Command = {
  name: "dag",
  remote: true,
  readOnly: true,
  summary: "order tools into an execution DAG with parallel layers (Dijkstra ≤ 3 hops over the learned graph)",
  usage: "toolgraph dag TOOL... [--intent TEXT] [--graph auto|history|dependency|blended] [--schema-edges]",
  examples: [
    "toolgraph dag git.commit git.push github.create_pull_request",
    "toolgraph dag db.backup db.migrate ci.deploy --json",
    'toolgraph dag weather.forecast geo.city --intent "find the city, then its forecast"',
  ],
  options: {
    intent: { type: "string" },
    graph: { type: "string" },
    "schema-edges": { type: "boolean" },
    ...GATE_OPTIONS,
    ...CAP_OPTIONS,
  },
  optionHelp: {
    "--intent TEXT":
      "the request in plain words: orients tools the history never saw in succession by the order it mentions them",
    "--graph":
      "auto (default: dependency evidence when the project has some, else history), history, dependency or blended",
    "--schema-edges": SCHEMA_EDGES_HELP,
    ...GATE_HELP,
    ...CAP_HELP,
  },
  async run(ctx) {
    const tools = ctx.positionals.flatMap((p) => p.split(",")).filter(Boolean);
    if (tools.length === 0) throw new UsageError("dag: name at least one tool");
    const graph = ctx.values.graph as "history" | "dependency" | undefined;
    return withTg(ctx, async (tg) => {
      const r = await tg.buildDag(
        strip({
          tools,
          intent: ctx.values.intent as string | undefined,
          graph,
          schemaEdges: schemaEdgesFlag(ctx),
          ...gateFields(ctx),
          ...capFields(ctx),
          limit: undefined,
          explain: undefined,
        }),
      );
      if (ctx.json) ctx.out(JSON.stringify(r));
      else printDag(ctx, r);
      return EXIT.ok;
    });
  },
};

export const planCommand: Command = {
  name: "plan",
  remote: true,
  readOnly: true,
  summary: "intent → plan: search, dependency closure (prerequisites), then the execution DAG",
  usage: 'toolgraph plan "INTENT" [--limit N] [--max-tools N] [--max-latency-ms MS] [--max-cost C]',
  examples: ['toolgraph plan "release v2 to production"', 'toolgraph plan "open a pull request" --max-tools 4 --json'],
  options: {
    exclude: { type: "string" },
    graph: { type: "string" },
    "schema-edges": { type: "boolean" },
    ...GATE_OPTIONS,
    ...CAP_OPTIONS,
  },
  optionHelp: {
    "--exclude a,b": "failed or unavailable tools to route around",
    "--schema-edges": SCHEMA_EDGES_HELP,
    ...GATE_HELP,
    ...CAP_HELP,
  },
  async run(ctx) {
    const intent = ctx.positionals.join(" ").trim();
    if (!intent) throw new UsageError("plan: the intent is missing");
    return withTg(
      ctx,
      async (tg) => {
        const r = await tg.plan(
          strip({
            intent,
            exclude: list(ctx.values.exclude),
            graph: ctx.values.graph as "history" | undefined,
            schemaEdges: schemaEdgesFlag(ctx),
            ...gateFields(ctx),
            ...capFields(ctx),
            explain: undefined,
          }),
        );
        if (ctx.json) ctx.out(JSON.stringify(r));
        else {
          for (const t of r.tools) ctx.out(`${t.tool}: ${t.why}`);
          printDag(ctx, r);
        }
        return EXIT.ok;
      },
      { searchIndex: true },
    );
  },
};

export const alternativesCommand: Command = {
  name: "alternatives",
  remote: true,
  readOnly: true,
  summary: "substitutes for a tool that failed or is unavailable",
  usage: "toolgraph alternatives TOOL [--context a,b] [--limit N]",
  examples: [
    "toolgraph alternatives email.send",
    "toolgraph alternatives slack.post_message --exclude-safety network --json",
  ],
  options: { context: { type: "string" }, ...GATE_OPTIONS, ...CAP_OPTIONS },
  optionHelp: { "--context a,b": "tools already used (not offered)", ...GATE_HELP, ...CAP_HELP },
  async run(ctx) {
    const tool = ctx.positionals[0];
    if (!tool) throw new UsageError("alternatives: name the tool that failed");
    return withTg(ctx, async (tg) => {
      const r = await tg.alternatives(
        strip({ tool, context: list(ctx.values.context), ...gateFields(ctx), ...capFields(ctx), explain: undefined }),
      );
      if (ctx.json) ctx.out(JSON.stringify(r));
      else
        printGated(
          ctx,
          r,
          r.results.map((x, i) => [i + 1, decisionMark(x.gate.decision), x.tool, fmtNum(x.score), x.explanation]),
          ["#", "", "tool", "score", "why"],
        );
      return EXIT.ok;
    });
  },
};

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
