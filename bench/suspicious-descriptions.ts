/**
 * False positives of the instruction-like heuristic (algorithms/safety/instruction-like.ts) on tool catalogs
 * written in good faith: the three shared datasets' catalogs and the tools of the pinned MCP servers
 * (server-everything, server-filesystem, server-memory, listed over stdio with the SDK client). Every flagged
 * description is printed with its rule and match, so a reader can judge each.
 *
 *   npx tsx bench/suspicious-descriptions.ts [--out suspicious-descriptions]
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { instructionLike } from "../algorithms/safety/instruction-like.ts";
import { convertNestful } from "./convert/nestful.ts";
import { convertSealTools } from "./convert/seal-tools.ts";
import { convertToolLinkOs } from "./convert/toollinkos.ts";
import { listMcpTools } from "./lib/mcp-servers.ts";
import { machine, markdownTable, writeResult } from "./lib/report.ts";

const { values } = parseArgs({ options: { out: { type: "string", default: "suspicious-descriptions" } } });

async function mcpTools(pkg: string, args: string[] = []): Promise<{ id: string; description: string }[]> {
  return (await listMcpTools(pkg, args)).map((t) => ({ id: `${pkg}.${t.name}`, description: t.description ?? "" }));
}

const catalogs: [string, { id: string; description?: string }[]][] = [
  ["seal-tools", convertSealTools().catalog.tools],
  ["toollinkos", convertToolLinkOs().catalog.tools],
  ["nestful", convertNestful().catalog.tools],
  ["mcp: server-everything", await mcpTools("server-everything", ["stdio"])],
  ["mcp: server-filesystem", await mcpTools("server-filesystem", [process.cwd()])],
  ["mcp: server-memory", await mcpTools("server-memory")],
];

const rows: (string | number)[][] = [];
const flagged: { catalog: string; tool: string; rules: string[]; matches: string[] }[] = [];
for (const [name, tools] of catalogs) {
  let n = 0;
  for (const t of tools) {
    const s = instructionLike(t.description ?? "");
    if (s.length === 0) continue;
    n++;
    flagged.push({ catalog: name, tool: t.id, rules: s.map((x) => x.rule), matches: s.map((x) => x.match) });
  }
  rows.push([name, tools.length, n, tools.length === 0 ? 0 : n / tools.length]);
}
const total = rows.reduce((a, r) => a + (r[1] as number), 0);
const hits = rows.reduce((a, r) => a + (r[2] as number), 0);
rows.push(["all", total, hits, hits / total]);
console.log(
  `# Instruction-like descriptions in good-faith catalogs\n\n${machine()}; load ${loadavg()[0]!.toFixed(1)}\n`,
);
console.log(
  markdownTable(
    ["catalog", "tools", "flagged", "false-positive rate"],
    rows.map((r) => [r[0], String(r[1]), String(r[2]), (r[3] as number).toFixed(4)]),
  ),
);
if (flagged.length > 0)
  console.log(
    `\n${markdownTable(
      ["catalog", "tool", "rules", "matched"],
      flagged.map((f) => [f.catalog, f.tool, f.rules.join(", "), f.matches.join(" / ")]),
    )}`,
  );
writeResult(values.out, {
  machine: machine(),
  load: loadavg(),
  command: "npx tsx bench/suspicious-descriptions.ts",
  catalogs: rows.map((r) => ({ catalog: r[0], tools: r[1], flagged: r[2], rate: r[3] })),
  flagged,
});
