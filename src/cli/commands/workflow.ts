/** plan, alternatives (dag: dag.ts). */
import { type Command, EXIT, UsageError } from "../command.ts";
import { fmtNum } from "../output.ts";
import { printDag, SCHEMA_EDGES_HELP, schemaEdgesFlag } from "./dag.ts";
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
