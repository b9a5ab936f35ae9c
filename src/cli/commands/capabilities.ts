/** `toolgraph capabilities` and `toolgraph discover`: capabilities for an intent, and those that fit the tools in use. */
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
