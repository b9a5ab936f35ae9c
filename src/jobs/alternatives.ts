/**
 * Alternatives on failure (retry with an alternate tool): substitutes for a tool that failed
 * or is unavailable, never the tool itself. Documented score in [0,1] (algorithms/search/alternative-score.ts):
 *   0.5·cos⁺(tool, candidate embeddings) + 0.2·[same Louvain community] + 0.2·[share a capability]
 *   + 0.1·schema compatibility (Jaccard of the two tools' input parameter names; 0 when both have none).
 * Candidates: the 50 nearest tools by embedding plus the tool's community and capability peers.
 */

import { rowDot } from "../../algorithms/linalg/dot.ts";
import { alternativeScore, schemaJaccard } from "../../algorithms/search/alternative-score.ts";
import { searchVectorIndex } from "../../algorithms/search/vector-index.ts";
import type { AlternativesRequest } from "../contract/requests.ts";
import { alternativesRequest } from "../contract/requests.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { gatedSummary } from "../gate/gatekeeper.ts";
import { safetyFilter } from "../view/filters.ts";
import type { ProjectView } from "../view/project-view.ts";
import { resolveTools } from "../view/resolve.ts";
import { defineJob } from "./job.ts";

function params(schema: Record<string, unknown> | null): Set<string> {
  const props = schema?.properties;
  return new Set(props && typeof props === "object" ? Object.keys(props) : []);
}

export async function runAlternatives(view: ProjectView, req: AlternativesRequest) {
  const t0 = performance.now();
  const s = view.snapshot;
  const a = view.analytics();
  const idx = await view.searchIndex();
  const [tool] = resolveTools(s, [req.tool], "tool") as [number];
  const context = new Set(resolveTools(s, req.context, "context"));
  const unsafe = safetyFilter(s, req.excludeSafetyTags);
  const q = idx.toolVectors.subarray(tool * idx.dims, (tool + 1) * idx.dims);
  const candidates = new Set<number>(searchVectorIndex(idx.toolVectorIndex, q, 50).map((h) => h.id));
  const community = a.analytics.community[tool]!;
  for (let i = 0; i < s.n; i++) if (a.analytics.community[i] === community && community >= 0) candidates.add(i);
  const capsOf = new Map<string, Set<string>>();
  for (const c of s.capabilities)
    for (const m of c.members) capsOf.set(m.tool, (capsOf.get(m.tool) ?? new Set()).add(c.id));
  const myCaps = capsOf.get(s.tools[tool]!.id) ?? new Set<string>();
  for (const c of s.capabilities)
    if (myCaps.has(c.id))
      for (const m of c.members) {
        const k = s.index.get(m.tool);
        if (k !== undefined) candidates.add(k);
      }
  const mine = params(s.tools[tool]!.inputSchema);
  const rows = [...candidates]
    .filter((i) => i !== tool && !context.has(i) && !unsafe(i))
    .map((i) => {
      const cos = rowDot(idx.toolVectors, idx.dims, i, q);
      const sameCommunity = community >= 0 && a.analytics.community[i] === community ? 1 : 0;
      const shared = [...(capsOf.get(s.tools[i]!.id) ?? [])].filter((c) => myCaps.has(c));
      const theirs = params(s.tools[i]!.inputSchema);
      const schema = schemaJaccard(mine, theirs);
      const score = alternativeScore({
        cosine: cos,
        sameCommunity: sameCommunity === 1,
        sharesCapability: shared.length > 0,
        schema,
      });
      return {
        tool: s.tools[i]!.id,
        name: s.tools[i]!.name,
        score,
        breakdown: {
          cosine: cos,
          sameCommunity: sameCommunity === 1,
          sharedCapabilities: shared,
          schemaCompatibility: schema,
        },
        explanation: `${s.tools[i]!.id}: ${score.toFixed(3)} = 0.5·similar description ${Math.max(0, cos).toFixed(2)} + 0.2·${sameCommunity ? "same community" : "other community"} + 0.2·${shared.length ? `shares ${shared.join(", ")}` : "no shared capability"} + 0.1·input schema overlap ${schema.toFixed(2)}`,
      };
    })
    .sort((x, y) => y.score - x.score || (x.tool < y.tool ? -1 : 1))
    .slice(0, req.maxTools ?? req.limit ?? 5);
  const prepared = await view.gate.prepare({
    project: view.project,
    user: req.user,
    text: "",
    environment: req.environment,
    urgency: req.urgency,
    requestWorkflow: req.workflow,
  });
  const fallbacks = await view.fallbacks();
  const results = rows.map((r) => ({ ...r, gate: view.gate.gateItem("alternatives", r.score, prepared) }));
  return {
    project: view.project,
    tool: req.tool,
    results,
    ...gatedSummary(results, (r) => r.tool, prepared, fallbacks, { empty: "no substitute found" }),
    timings: { totalMs: performance.now() - t0 },
  };
}

/** Substitutes for a tool that failed or is unavailable, gated. */
export const alternativesJob = defineJob({
  request: alternativesRequest,
  result: RESULT_SCHEMAS.alternatives,
  answerKey: "runAlternatives",
  run: (ctx, req) => runAlternatives(ctx.view, req),
});
