/** The words of a DAG's answer: each edge and layer explained with tool names, and the DAG's confidence. */
import type { ExecutionDag } from "../../algorithms/dag/build-execution-dag.ts";
import { dagConfidence as confidenceOfDag } from "../../algorithms/dag/confidence.ts";
import type { PriorDependency } from "../../algorithms/dag/data-flow-prior.ts";
import type { MentionDependency } from "../../algorithms/dag/mention-order.ts";
import type { SchemaDependency } from "../../algorithms/dag/schema-dependencies.ts";
import { formatFixed } from "../formats/fixed.ts";
import type { ToolRow } from "../store/reads.ts";
import { type HistoryDependency, noDependencyEdge } from "../view/dag-rates.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";

/** The ids of tool indices `xs`. */
function idsOf(tools: readonly ToolRow[], xs: readonly number[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < xs.length; k++) out.push(tools[xs[k]!]!.id);
  return out;
}

/** `xs.join(" → ")`. */
function arrows(xs: readonly string[]): string {
  if (xs.length === 0) return "";
  let out = xs[0]!;
  for (let k = 1; k < xs.length; k++) out += ` → ${xs[k]!}`;
  return out;
}

/** The answer form of an execution DAG: tool ids, and one sentence per kept or dropped edge. */
export function describeDag(s: GraphSnapshot, dag: ExecutionDag) {
  const tools = s.tools;
  // One pass per edge: the explanation is the evidence's sentence, replaced by the orientation's when the
  // direction came from roles or mentions, then the observed precedence appended.
  const edges = [];
  for (const e of dag.edges) {
    const from = tools[e.from]!.id;
    const to = tools[e.to]!.id;
    const path = idsOf(tools, e.path);
    const schema = (e as Partial<SchemaDependency>).schema;
    const prior = (e as Partial<PriorDependency>).prior;
    const direct = e.direct;
    const mentioned = direct ? undefined : (e as Partial<MentionDependency>).mentioned;
    const o = e.orientation;
    let explanation = o
      ? o.mention
        ? `${to} depends on ${from}: related by ${arrows(idsOf(tools, o.evidence))}, never observed in succession; direction from the intent, which mentions ${from} (word ${o.mention.from + 1}) before ${to} (word ${o.mention.to + 1})`
        : `${to} depends on ${from}: related by ${arrows(idsOf(tools, o.evidence))}, never observed in succession; direction from learned roles (${to} read another tool's output in ${(100 * (o.consumerTo ?? 0)).toFixed(0)} % of its runs, ${from} in ${(100 * (o.consumerFrom ?? 0)).toFixed(0)} %)`
      : direct
        ? `${to} depends on ${from}: direct dependency edge (strength ${formatFixed(e.strength, 2)})`
        : mentioned !== undefined
          ? `${to} may depend on ${from}: no evidence relates the selected tools; the intent mentions ${from} (word ${mentioned.from + 1}) before ${to} (word ${mentioned.to + 1}) (strength ${formatFixed(e.strength, 2)})`
          : prior !== undefined
            ? `${to} may depend on ${from}: no evidence relates the selected tools; data-flow prior (${to} consumed another tool's output in ${(100 * prior.consumer).toFixed(0)} % of its runs, ${from}'s output was consumed in ${(100 * prior.producer).toFixed(0)} %${prior.schema.output === "" ? "" : `; output ${prior.schema.output} fits input ${prior.schema.input}, schema match ${formatFixed(prior.schema.score, 2)}`}; strength ${formatFixed(e.strength, 2)})`
            : schema !== undefined
              ? `${to} may depend on ${from}: no learned or declared relation; output ${schema.output} of ${from} fits required input ${schema.input} of ${to} (schema match ${formatFixed(schema.score, 2)}, strength ${formatFixed(e.strength, 2)})`
              : (e as Partial<HistoryDependency>).history
                ? `${to} depends on ${from}: path ${arrows(path)} in the history graph (${e.hops} hop${e.hops === 1 ? "" : "s"}, strength ${formatFixed(e.strength, 2)}), standing in for the dependency graph, which records no data flow in or out of ${[from, to].filter((x) => noDependencyEdge(s, s.index.get(x)!)).join(" or ")}`
                : `${to} depends on ${from}: path ${arrows(path)} (${e.hops} hop${e.hops === 1 ? "" : "s"}, strength ${formatFixed(e.strength, 2)})`;
    const p = e.precedence;
    if (p && p.before + p.after > 0)
      explanation = `${explanation}; observed ${from} before ${to} ${p.before}×, after ${p.after}×`;
    const evidence = direct
      ? ("dependency" as const)
      : schema !== undefined
        ? ("schema" as const)
        : prior !== undefined
          ? ("prior" as const)
          : mentioned !== undefined
            ? ("mention" as const)
            : ("path" as const);
    const hops = e.hops;
    const strength = e.strength;
    const meanWeight = e.meanWeight;
    // Built in final shape (the optional fields before the explanation, as the answer always listed them).
    edges.push(
      schema === undefined && prior === undefined
        ? { from, to, hops, strength, meanWeight, direct, path, evidence, explanation }
        : schema === undefined
          ? { from, to, hops, strength, meanWeight, direct, path, evidence, prior: prior!, explanation }
          : prior === undefined
            ? { from, to, hops, strength, meanWeight, direct, path, evidence, schema, explanation }
            : { from, to, hops, strength, meanWeight, direct, path, evidence, schema, prior, explanation },
    );
  }
  const nodes = [];
  for (const n of dag.nodes)
    nodes.push({
      tool: tools[n.node]!.id,
      layer: n.layer,
      prerequisites: idsOf(tools, n.prerequisites),
      dependents: idsOf(tools, n.dependents),
      root: n.root,
      reason: n.reason,
    });
  const dropped = [];
  for (const d of dag.dropped) {
    const e = d.edge;
    const from = tools[e.from]!.id;
    const to = tools[e.to]!.id;
    const witness = idsOf(tools, d.witness);
    dropped.push({
      from,
      to,
      reason: d.reason,
      strength: e.strength,
      witness,
      explanation:
        d.reason === "cycle"
          ? `dropped ${from} → ${to}: weakest edge (strength ${formatFixed(e.strength, 2)}${e.precedence ? `, observed in this order ${e.precedence.before}× against ${e.precedence.after}× the other way, order share ${formatFixed(e.precedence.share, 2)}` : ""}) of the cycle ${arrows(witness)}`
          : d.reason === "direct-first"
            ? `dropped ${from} → ${to}: ${to} has a direct dependency edge from ${witness[0]!}; a ${e.hops}-hop relation adds no prerequisite`
            : d.reason === "orientation"
              ? `dropped ${from} → ${to}: never observed in either order; ${d.explanation.includes("intent mentions") ? "the intent mentions" : "the learned roles point"} ${to} → ${from}, also a candidate`
              : `dropped ${from} → ${to}: implied by ${arrows(witness)}`,
    });
  }
  const layers = [];
  for (const l of dag.layers) layers.push(idsOf(tools, l));
  const t = dag.timing;
  return {
    nodes,
    edges,
    dropped,
    layers,
    timing: {
      criticalPath: idsOf(tools, t.path),
      wallTimeMs: t.wallTimeMs,
      sequentialMs: t.sequentialMs,
      speedup: t.speedup,
      unknownLatency: idsOf(tools, t.unknownLatency),
      reason: t.reason,
    },
  };
}

/** DAG confidence: mean strength of the kept edges (1 for a single tool; 0 when several tools are unrelated). */
export function dagConfidence(dag: ExecutionDag): number {
  return confidenceOfDag(
    dag.nodes.length,
    dag.edges.map((e) => e.strength),
  );
}
