/**
 * The order of the gateway's catalog work and what it left: syncs and sweeps run one at a time, in order
 * (execution writes wait for them: src/store/durable-writer.ts), and each sync records which tools it blocked
 * (policy or quarantine), which the catalog refused, and which servers are in the catalog. The syncs themselves
 * are catalog-sync.ts's.
 */
import type { Toolgraph } from "../library/toolgraph.ts";
import { boundList } from "./bounded-line.ts";
import { explainEmpty } from "./catalog-report.ts";
import { catalogCanHold } from "./refused-steps.ts";
import { splitToolId } from "./tool-map.ts";
import type { PinStore } from "./trust.ts";
import type { Upstream } from "./upstream.ts";

export interface CatalogQueueOptions {
  api: Toolgraph;
  project: string;
  upstreams: ReadonlyMap<string, Upstream>;
  pins: PinStore;
  retireAfterMs: number;
  log: (line: string) => void;
}

export class CatalogQueue {
  protected readonly o: CatalogQueueOptions;
  /** Catalog syncs, in order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Tools left out of the catalog by the policy or quarantined by their pins: id → the reason. */
  protected readonly blocked = new Map<string, string>();
  /** Per server, the catalog ids its last sync refused. */
  protected readonly refused = new Map<string, Set<string>>();
  /** Servers whose tools have been synced into the catalog at least once. */
  protected readonly synced = new Set<string>();
  /** The search index build of the last synced catalog (background; `indexed` waits for it). */
  protected indexing: Promise<unknown> = Promise.resolve();
  protected closed = false;

  constructor(options: CatalogQueueOptions) {
    this.o = options;
  }

  protected enqueue(job: () => Promise<unknown>, what: string): Promise<void> {
    const next = this.queue.then(job).then(
      () => undefined,
      (err) => this.o.log(`toolgraph gateway: ${what} failed: ${(err as Error)?.stack ?? String(err)}`),
    );
    this.queue = next;
    return next;
  }

  /** Resolves once every queued sync is done (the catalog holds each server's last list). */
  async done(): Promise<void> {
    for (let q = this.queue; ; q = this.queue) {
      await q;
      if (q === this.queue) return;
    }
  }

  /** Resolves once the syncs are done and the search index of the catalog is built (its embeddings computed). */
  async indexed(): Promise<void> {
    for (let i = this.indexing; ; i = this.indexing) {
      await this.done();
      await i;
      if (i === this.indexing) return;
    }
  }

  /** True for a tool left out by the policy or quarantined at its server's last sync. */
  isBlocked(id: string): boolean {
    return this.blocked.has(id);
  }

  /** Tools quarantined now (changed since first seen, waiting for approval). */
  quarantined(): { tool: string; since: string; firstSeen: string }[] {
    return this.o.pins.quarantined().filter((q) => this.blocked.has(q.tool));
  }

  /** How many tools the policy denies now. */
  get denied(): number {
    return [...this.blocked.values()].filter((why) => why.startsWith("denied")).length;
  }

  /** False for a tool the catalog refused at its server's last sync, or whose id the catalog cannot hold. */
  usableTool(tool: string): boolean {
    const p = splitToolId(tool);
    return !(p && this.refused.get(p.server)?.has(tool)) && catalogCanHold(tool);
  }

  /** Retires the tools unlisted past the grace period that no sync touched (a server that stopped changing). */
  sweepRetired(): void {
    const { api, project, retireAfterMs, log } = this.o;
    void this.enqueue(async () => {
      let retired: string[] = [];
      // Staged like a sync: searches meanwhile answer from the catalog as it was (catalog-sync.ts).
      await api.staged(
        async () => {
          retired = await api.retireUnavailableTools(retireAfterMs, { project });
          if (retired.length > 0) await this.readySearch();
        },
        { project },
      );
      if (retired.length > 0)
        log(`toolgraph gateway: unlisted for over ${retireAfterMs} ms, retired: ${boundList(retired)}`);
    }, "retiring unlisted tools");
  }

  /** Readies what the next search answers from (Toolgraph.warmUp "search"); a failure is logged, not thrown. */
  protected async readySearch(): Promise<void> {
    await this.o.api
      .warmUp("search", { project: this.o.project })
      .catch((err: unknown) =>
        this.o.log(`toolgraph gateway: readying the search failed: ${(err as Error)?.message ?? err}`),
      );
  }

  /** The error a search gets on an empty catalog while upstreams are still being listed (catalog-report.ts). */
  explainEmpty(err: unknown): unknown {
    return explainEmpty(err, [...this.o.upstreams.values()], this.synced, this.o.project);
  }

  /** No retry is scheduled from now on. */
  close(): void {
    this.closed = true;
  }
}
