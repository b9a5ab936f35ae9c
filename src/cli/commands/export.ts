/** `toolgraph export`: the project's tool graph as GraphML or GEXF (Gephi, yEd, Cytoscape). */
// The graph view and the writers are imported when the command runs, so `toolgraph --help` does not load them.
import { writeFile } from "node:fs/promises";
import { type Command, EXIT, UsageError } from "../command.ts";

export const exportCommand: Command = {
  name: "export",
  summary:
    "write the tool graph as GraphML or GEXF (tools with community, PageRank, success rate; typed, weighted edges)",
  usage: "toolgraph export --format graphml|gexf [--out FILE]",
  examples: [
    "toolgraph export --format gexf --out tools.gexf",
    "toolgraph export --format graphml --project demo > tools.graphml",
  ],
  options: { format: { type: "string" }, out: { type: "string" } },
  optionHelp: {
    "--format F": "graphml or gexf (required)",
    "--out FILE": "write to FILE instead of stdout",
  },
  async run(ctx) {
    const format = ctx.values.format;
    if (format !== "graphml" && format !== "gexf")
      throw new UsageError(
        `--format must be graphml or gexf, got ${format === undefined ? "nothing" : JSON.stringify(format)}`,
      );
    const { toGEXF, toGraphML } = await import("../../formats/graph-xml.ts");
    const tg = await ctx.open();
    try {
      const g = await tg.graph();
      const text = format === "gexf" ? toGEXF(g) : toGraphML(g);
      const out = ctx.values.out;
      if (typeof out === "string" && out !== "") {
        await writeFile(out, text, "utf8");
        const summary = { file: out, format, project: g.project, nodes: g.nodes.length, edges: g.edges.length };
        if (ctx.json) ctx.out(JSON.stringify(summary));
        else
          ctx.err(
            `toolgraph: wrote ${g.nodes.length} tools and ${g.edges.length} edges of project ${g.project} to ${out} (${format})`,
          );
      } else ctx.out(text.replace(/\n$/, ""));
      return EXIT.ok;
    } finally {
      await tg.close();
    }
  },
};
