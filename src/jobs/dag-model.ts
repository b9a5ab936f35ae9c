/**
 * `dagModel`: the DAG core of a project's graph version (jobs/dag.ts `dagOver`: the history / dependency graph,
 * the hops, the data-flow prior and precedence over the snapshot's derived views, then
 * algorithms/dag/build-execution-dag.ts), with the tool ids by index. A library-only read for measurements
 * (docs/decisions/layout.md): `dag(indices)` builds as the buildDag job's core does, without its request
 * (validation, tool resolution, the gate, the answer's texts).
 */
import type { ExecutionDag } from "../../algorithms/dag/build-execution-dag.ts";
import type { ProjectView } from "../view/project-view.ts";
import { dagOver } from "./dag.ts";

export interface DagModel {
  /** Tool ids by index. */
  tools: readonly string[];
  /** Each tool's index by id. */
  index: ReadonlyMap<string, number>;
  /** The graph version the model is of. */
  version: number;
  /** The DAG over the tools of `selected` (indices) with the job's defaults (the graph `auto`, 3 hops). */
  dag(selected: readonly number[]): ExecutionDag;
}

export function dagModel(view: ProjectView): DagModel {
  const s = view.snapshot;
  return {
    tools: s.tools.map((t) => t.id),
    index: s.index,
    version: s.version,
    dag: (selected) => {
      for (const [i, t] of selected.entries())
        if (!Number.isInteger(t) || t < 0 || t >= s.n)
          throw new RangeError(`dag: selected[${i}] must be a tool index below ${s.n}, got ${t}`);
      return dagOver(s, selected as number[]);
    },
  };
}
