/** search, next, capabilities, discover (dag, plan, alternatives: workflow.ts; record, learn-weights, calibrate: learning.ts). */
import { type Command, EXIT, UsageError } from "../command.ts";
import { fmtNum } from "../output.ts";
import {
  CAP_HELP,
  CAP_OPTIONS,
  capFields,
  decisionMark,
  GATE_HELP,
  GATE_OPTIONS,
  gateFields,
  list,
  printGated,
  strip,
  withTg,
} from "./recommend-shared.ts";

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
      { searchIndex: true, warmQueries: [intent] },
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
    const nextIntent = ctx.values.intent as string | undefined;
    return withTg(
      ctx,
      async (tg) => {
        const r = await tg.suggestNext(
          strip({
            context,
            intent: nextIntent,
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
      },
      nextIntent ? { warmQueries: [nextIntent] } : {},
    );
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
      { searchIndex: true, warmQueries: [intent] },
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
