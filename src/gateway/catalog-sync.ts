/**
 * The gateway's catalog sync: each upstream's tool list, as the policy and the pins admit it (catalog-admit.ts),
 * kept in the project's catalog (`syncServerTools`: `<server>.<tool>`, unlisted tools marked unavailable). Syncs
 * run one at a time, in order; the syncs of one server coalesce (a sync queued and not yet started takes the
 * newest list); a sync the database could not take is retried with backoff (0.5 s doubling to 10 s:
 * algorithms/timing/backoff.ts); tools unlisted past `retireAfterMs` are retired (out of search and the console,
 * history kept: docs/decisions/gateway-churn.md). A search while no upstream has listed its tools says which are
 * pending (catalog-report.ts). Each sync readies what the next search answers from (Toolgraph.warmUp "search");
 * the full search index of a synced catalog is built in the background: until its embeddings are in, searches
 * answer lexically (docs/decisions/lexical-while-embedding.md).
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { compilePolicy } from "../../algorithms/safety/tool-policy.ts";
import { nextBackoff } from "../../algorithms/timing/backoff.ts";
import { ToolgraphError } from "../contract/errors.ts";
import type { GatewayConfig } from "../contract/gateway-config.ts";
import type { Toolgraph } from "../library/toolgraph.ts";
import { admitTools } from "./catalog-admit.ts";
import { CatalogQueue } from "./catalog-queue.ts";
import { logSync } from "./catalog-report.ts";
import { splitToolId } from "./tool-map.ts";
import type { PinStore } from "./trust.ts";
import type { Upstream } from "./upstream.ts";

export interface CatalogSyncOptions {
  api: Toolgraph;
  project: string;
  config: GatewayConfig;
  upstreams: ReadonlyMap<string, Upstream>;
  pins: PinStore;
  retireAfterMs: number;
  log: (line: string) => void;
  /** Called after each sync that reached the catalog (the sessions refresh what they expose). */
  onSynced: () => void;
}

const errorText = (err: unknown) => (err as Error)?.message ?? String(err);

export class CatalogSync extends CatalogQueue {
  declare protected readonly o: CatalogSyncOptions;
  private readonly policy: ReturnType<typeof compilePolicy>;
  /** Per server, the delay before retrying a sync the database could not take. */
  private readonly syncBackoffMs = new Map<string, number>();
  /** The newest tool list of each server whose sync is queued and not yet started (later lists replace it). */
  private readonly pendingSyncs = new Map<string, Tool[]>();

  constructor(options: CatalogSyncOptions) {
    super(options);
    this.policy = compilePolicy(options.config.policy);
  }

  /** Queues a sync of a server's newest tool list (coalesced with one already waiting). */
  onTools(server: string, tools: Tool[]): void {
    // A sync of this server already waits in the queue: it will take this newer list instead.
    const queued = this.pendingSyncs.has(server);
    this.pendingSyncs.set(server, tools);
    if (queued) return;
    void this.enqueue(() => this.sync(server, tools), `syncing the tools of ${server}`);
  }

  private async sync(server: string, tools: Tool[]): Promise<void> {
    const o = this.o;
    const latest = this.pendingSyncs.get(server) ?? tools;
    this.pendingSyncs.delete(server);
    let r!: Awaited<ReturnType<Toolgraph["syncServerTools"]>>;
    const autoApprove = o.config.servers.get(server)?.autoApprove === true;
    const admitted = await admitTools(server, latest, {
      ...o,
      policy: this.policy,
      autoApprove,
      blocked: this.blocked,
    });
    // Staged: searches meanwhile answer at once from the catalog published before this sync; the new one is
    // published once written and readied (Toolgraph.staged, docs/decisions/gateway-first-answer.md).
    await o.api.staged(
      async () => {
        try {
          r = await o.api.syncServerTools(server, admitted, {
            project: o.project,
            retireAfterMs: o.retireAfterMs,
            embed: false,
          });
        } catch (err) {
          this.retrySyncLater(server, latest, err);
          throw err;
        }
        this.syncBackoffMs.delete(server);
        this.refused.set(server, new Set(r.rejected.map((x) => x.tool)));
        // What the next search answers from is readied now, in the sync: the new graph's analytics in their
        // worker, the lexical index, the ranking's derived state. Else the first search after the sync builds
        // them, partly synchronously (the analytics of a new graph shape, the mention index).
        await this.readySearch();
      },
      { project: o.project },
    );
    // Published: a search from now on finds the tools (lexically until the index build below is done).
    this.synced.add(server);
    this.indexing = o.api
      .prepareSearch({ project: o.project })
      .catch((err: unknown) => o.log(`toolgraph gateway: building the search index failed: ${errorText(err)}`));
    logSync(server, r, o.retireAfterMs, o.log);
    o.onSynced();
  }

  /** Why a tool is refused (policy or quarantine), or undefined; re-reads the pin file if it was approved since. */
  refusal(id: string): string | undefined {
    if (this.blocked.has(id) && this.o.pins.reload()) {
      // Approved from another process (`toolgraph gateway approve`): sync its server again.
      const server = splitToolId(id)?.server;
      const u = server ? this.o.upstreams.get(server) : undefined;
      if (u && server) this.onTools(server, [...u.tools]);
    }
    const why = this.blocked.get(id);
    // Quarantined, and approved since: the call may go (its catalog entry follows with the sync above).
    if (why?.startsWith("quarantined") && this.o.pins.get(id)?.pending === undefined) return undefined;
    return why;
  }

  /**
   * A sync the database could not take (down at start, or a blip) is tried again with backoff unless a newer list
   * of the server is already queued: tools listed during an outage still reach the catalog when the database returns.
   */
  private retrySyncLater(server: string, tools: Tool[], err: unknown): void {
    const code = err instanceof ToolgraphError ? err.code : undefined;
    if (this.closed || (code !== "database-unreachable" && code !== "database-locked")) return;
    const delay = this.syncBackoffMs.get(server) ?? 500;
    this.syncBackoffMs.set(server, nextBackoff(delay, 10_000));
    setTimeout(() => {
      if (!this.closed && !this.pendingSyncs.has(server)) this.onTools(server, tools);
    }, delay).unref();
  }
}
