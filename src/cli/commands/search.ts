/** `toolgraph search`: tools for an intent (next, capabilities: next.ts, capabilities.ts; dag, plan, alternatives: workflow.ts). */
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
