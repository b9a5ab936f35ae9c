/** The api the gateway serves: the library's, with the gateway's status in `stats` and its own empty-catalog error. */
import type { GatewayStatus } from "./status-tool.ts";

/** What the served api needs of its gateway (gateway.ts implements it). */
export interface ApiHost {
  status(): GatewayStatus;
  /** The error to answer instead of `err` (an empty catalog explained by the upstreams still loading). */
  explainEmpty(err: unknown): unknown;
}

/**
 * The api the gateway serves (its MCP sessions and its HTTP server): the library's, with `stats` also naming
 * the upstream servers and which are down (GET /v1/stats), like `gateway_status` and /health, and an empty
 * catalog explained by the upstreams still being listed (CatalogSync.explainEmpty) rather than by CLI advice.
 */
export function gatewayApi<T extends object & { stats(opts?: { project?: string | undefined }): Promise<object> }>(
  api: T,
  gateway: ApiHost,
): T {
  return new Proxy(api, {
    get(target, prop, receiver) {
      if (prop === "stats") {
        return async (opts?: { project?: string | undefined }) => {
          const st = gateway.status();
          return {
            ...(await target.stats(opts)),
            gateway: {
              servers: st.servers,
              down: st.down,
              sessions: st.sessions,
              learning: st.learning,
              recorded: st.recorded,
            },
          };
        };
      }
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        const r = v.apply(target, args);
        return r instanceof Promise
          ? r.catch((err: unknown) => {
              throw gateway.explainEmpty(err);
            })
          : r;
      };
    },
  });
}
