/** `toolgraph stats`: the project's counts and the learned weights in force. */
import { type Command, EXIT } from "../command.ts";
import { table } from "../output.ts";

export const statsCommand: Command = {
  name: "stats",
  remote: true,
  readOnly: true,
  summary: "counts of tools, capabilities, edges, executions of the project, and the learned weights in force",
  usage: "toolgraph stats",
  examples: ["toolgraph stats", "toolgraph stats --project acme --json"],
  async run(ctx) {
    const tg = await ctx.open();
    try {
      const s = await tg.stats();
      if (ctx.json) ctx.out(JSON.stringify(s));
      else {
        ctx.out(`project ${s.project} on ${s.backend} (${s.location}), graph version ${s.graphVersion}`);
        ctx.out(
          table(
            ["tools", "capabilities", "edges", "executions", "steps", "embeddings", "users"],
            [[s.tools, s.capabilities, s.edges, s.executions, s.steps, s.embeddings, s.users]],
          ),
        );
        const w = (o: object) =>
          Object.entries(o)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ");
        const fitLine = (f: { fittedAt: string; accepted: boolean; reason: string } | null, dflt: string) =>
          f ? `fitted ${f.fittedAt}, ${f.accepted ? "in use" : `${dflt} kept`}: ${f.reason}` : "never fitted";
        const l = s.learning;
        ctx.out(`search weights: ${w(l.searchWeights.inForce)} (${fitLine(l.searchWeights.fit, "defaults")})`);
        ctx.out(
          `next-step weights: ${w(l.nextStepWeights.inForce)} (${fitLine(l.nextStepWeights.fit, "seed weights")})`,
        );
        ctx.out(`calibration: ${l.calibration.kinds.length > 0 ? l.calibration.kinds.join(", ") : "none"}`);
      }
      return EXIT.ok;
    } finally {
      await tg.close();
    }
  },
};
