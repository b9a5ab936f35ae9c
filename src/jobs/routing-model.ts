/**
 * `routingModel`: a project's two-hop routing read model as its core takes it (algorithms/search/
 * namespace-routing.ts `scoreNamespaces`, `selectNamespaces`): the namespace index of the catalog (built on first
 * use, then derived state of the search index), the tools' live success counts (the usage prior), and the route
 * `auto` kept after its trial. A library-only read for measurements (docs/decisions/layout.md): routing with the
 * core on it routes as the search job's first hop does, before the context tools' graph neighbours join.
 */
import type { NamespaceIndex, RouteDecision } from "../../algorithms/search/namespace-routing.ts";
import { namespaceIndexFor, ROUTING_DEFAULTS, routeDecision } from "../view/namespace-index.ts";
import type { ProjectView } from "../view/project-view.ts";

export interface RoutingModel {
  /** The graph version the model is of. */
  version: number;
  /** The catalog's namespaces: groups of tool indices, their centroids and the tools' BM25 index. */
  namespaces: NamespaceIndex;
  /** Successful executions per tool, by index (the usage prior). */
  successes: ArrayLike<number>;
  /** The route `auto` kept for this catalog after its trial; undefined while none is decided. */
  decision: RouteDecision | undefined;
  /** The routing's defaults (auto's thresholds, the trial's length). */
  defaults: typeof ROUTING_DEFAULTS;
}

export async function routingModel(view: ProjectView): Promise<RoutingModel> {
  const idx = await view.searchIndex();
  const s = view.snapshot;
  return {
    version: s.version,
    namespaces: namespaceIndexFor(s, idx),
    successes: s.successes,
    decision: routeDecision(idx),
    defaults: ROUTING_DEFAULTS,
  };
}
