/**
 * The api the gateway serves: the library's, with the gateway's status in `stats`, its own empty-catalog error,
 * and a `ping` (/health) answered from memory.
 */
import { OPERATION_LIST } from "../contract/operations.ts";
import type { GatewayStatus } from "./status-tool.ts";

/** Resolves when `p` settles or after `ms`, whichever comes first. */
export function untilOr(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((r) => {
      timer = setTimeout(r, ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

/** What the served api needs of its gateway (gateway.ts implements it). */
export interface ApiHost {
  status(): GatewayStatus;
  /** The error to answer instead of `err` (an empty catalog explained by the upstreams still loading). */
  explainEmpty(err: unknown): unknown;
  /** While the gateway starts (its first catalog sync), a promise of its end (gateway-catalog.ts), else undefined. */
  settling?(): Promise<void> | undefined;
}

export const GATEWAY_API_DEFAULTS = {
  /**
   * How long (ms) an operation waits at most for the gateway's start (its upstreams' first listing and catalog
   * sync) before it runs anyway, saying which servers are pending. Later syncs are never waited for: they are
   * staged, and operations answer from the catalog published before them (docs/decisions/gateway-first-answer.md).
   */
  syncWaitMs: 10_000,
} as const;

/**
 * The api the gateway serves (its MCP sessions and its HTTP server): the library's, with `stats` also naming
 * the upstream servers and which are down (GET /v1/stats), like `gateway_status` and /health, and an empty
 * catalog explained by the upstreams still being listed (CatalogSync.explainEmpty) rather than by CLI advice.
 * `ping` (the /health probe) never waits on the database: the gateway relays calls and keeps what it learns
 * while the database is slow or down (an import's transaction holds PGlite's one connection for seconds), so
 * its liveness is the process answering; the write backlog is in `gateway_status` and /metrics.
 */
export function gatewayApi<
  T extends object & {
    stats(opts?: { project?: string | undefined }): Promise<object>;
    database?(): { backend: "postgres" | "pglite" };
  },
>(api: T, gateway: ApiHost): T {
  /** The operations of the table (search, plan, next, …): what waits for the gateway's start. */
  const operations: ReadonlySet<string | symbol> = new Set(OPERATION_LIST.map((o) => o.name));
  return new Proxy(api, {
    get(target, prop, receiver) {
      if (prop === "ping" && typeof target.database === "function") {
        const backend = target.database().backend;
        return async () => ({ backend });
      }
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
      if (operations.has(prop)) {
        return async (...args: unknown[]) => {
          const settling = gateway.settling?.();
          if (settling) await untilOr(settling, GATEWAY_API_DEFAULTS.syncWaitMs);
          try {
            return await v.apply(target, args);
          } catch (err) {
            throw gateway.explainEmpty(err);
          }
        };
      }
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
