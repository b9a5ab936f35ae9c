/** `toolgraph next`: the next tool after the tools run so far. */
import { type Command, EXIT, UsageError } from "../command.ts";
import { fmtNum } from "../output.ts";
import {
  decisionMark,
  GATE_HELP,
  GATE_OPTIONS,
  gateFields,
  list,
  printGated,
  strip,
  withTg,
} from "./recommend-shared.ts";

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
