/**
 * The server's own Prometheus series beside the request latency and gate decisions: requests in flight,
 * readiness, and for the library's Toolgraph the caches, the analytics refresh and the recommendation log;
 * every refit of a project's weights is also one log line (learning-log.ts).
 */
import type { RecommenderApi } from "../contract/api.ts";
import { Toolgraph } from "../library/toolgraph.ts";
import type { Logger } from "../ops/logger.ts";
import type { MetricsRegistry } from "../ops/metrics.ts";
import type { Readiness } from "./readiness.ts";

export interface ServerMetricsDeps {
  readiness: Readiness;
  logger: Logger;
  defaultProject: string | undefined;
  inFlight(): number;
}

export function registerServerMetrics(metrics: MetricsRegistry, api: RecommenderApi, deps: ServerMetricsDeps): void {
  metrics.collect({
    name: "toolgraph_http_requests_in_flight",
    help: "Requests being handled",
    type: "gauge",
    collect: () => [{ labels: {}, value: deps.inFlight() }],
  });
  metrics.collect({
    name: "toolgraph_ready",
    help: "1 when /ready would answer 200",
    type: "gauge",
    collect: async () => [{ labels: {}, value: (await deps.readiness.report()).ready ? 1 : 0 }],
  });
  if (api instanceof Toolgraph) {
    const tg = api;
    // Every refit of a project's weights is one log line: before → after, the evidence, the data (learning-log.ts).
    tg.onRefit((r) =>
      deps.logger.info("refit", {
        kind: r.kind,
        project: r.project,
        accepted: r.accepted,
        before: r.before,
        after: r.after,
        reason: r.reason,
        data: r.data,
      }),
    );
    metrics.collect({
      name: "toolgraph_cache_hits_total",
      help: "Cache hits by cache (result cache of answers, query-embedding cache)",
      type: "counter",
      collect: () => [
        { labels: { cache: "results" }, value: tg.results.stats().hits },
        { labels: { cache: "query_embeddings" }, value: tg.cacheStats().queryEmbeddings.hits },
      ],
    });
    metrics.collect({
      name: "toolgraph_cache_misses_total",
      help: "Cache misses by cache",
      type: "counter",
      collect: () => [
        { labels: { cache: "results" }, value: tg.results.stats().misses },
        { labels: { cache: "query_embeddings" }, value: tg.cacheStats().queryEmbeddings.misses },
      ],
    });
    metrics.collect({
      name: "toolgraph_analytics_refresh_seconds",
      help: "Time of the last analytics refresh of the default project, by phase (after warm-up)",
      type: "gauge",
      collect: async () => {
        const r = await deps.readiness.report();
        if (!r.checks.find((c) => c.name === "analytics")?.ok) return [];
        const t = (await tg.analyticsStatus({ project: deps.defaultProject ?? tg.project })).timingsMs;
        return Object.entries(t).map(([phase, ms]) => ({ labels: { phase }, value: ms / 1000 }));
      },
    });
    metrics.collect({
      name: "toolgraph_recommendation_log_rows_total",
      help: "Recommendation-log rows written or dropped",
      type: "counter",
      collect: () => [
        { labels: { state: "written" }, value: tg.recommendations.written },
        { labels: { state: "dropped" }, value: tg.recommendations.dropped },
      ],
    });
  }
}
