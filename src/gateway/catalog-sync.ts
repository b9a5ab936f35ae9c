/**
 * The gateway's catalog sync: each upstream's tool list, as the policy and the pins admit it (trust.ts), kept in
 * the project's catalog (`syncServerTools`: `<server>.<tool>`, unlisted tools marked unavailable). Syncs run one
 * at a time, in order; the syncs of one server coalesce (a sync queued and not yet started takes the newest
 * list); a sync the database could not take is retried with backoff; tools unlisted past `retireAfterMs` are
 * retired (out of search and the console, history kept: docs/decisions/gateway-churn.md). A search while no
 * upstream has listed its tools says which are pending (explainEmpty). Each sync readies what the next search
 * answers from (Toolgraph.warmUp "search"); the full search index of a synced catalog is built in the
 * background: until its embeddings are in, searches answer lexically (docs/decisions/lexical-while-embedding.md).
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolgraphError } from "../contract/errors.ts";
import { slicer } from "../view/background.ts";
import type { Toolgraph } from "../library/toolgraph.ts";
import { boundLine, boundList } from "./bounded-line.ts";
import type { GatewayConfig } from "./config.ts";
import { catalogCanHold } from "./refused-steps.ts";
import { splitToolId, toCatalogTool } from "./tool-map.ts";
import { compilePolicy, type PinStore, toolHash } from "./trust.ts";
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

export class CatalogSync {
  private readonly o: CatalogSyncOptions;
  /** Catalog syncs, in order (execution writes wait for them: durable-writer.ts). */
  private queue: Promise<unknown> = Promise.resolve();
  /** Tools left out of the catalog by the policy or quarantined by their pins: id → the reason (trust.ts). */
  private readonly blocked = new Map<string, string>();
  private readonly policy: ReturnType<typeof compilePolicy>;
  /** Per server, the delay before retrying a sync the database could not take. */
  private readonly syncBackoffMs = new Map<string, number>();
  /** Per server, the catalog ids its last sync refused. */
  private readonly refused = new Map<string, Set<string>>();
  /** The newest tool list of each server whose sync is queued and not yet started (later lists replace it). */
  private readonly pendingSyncs = new Map<string, Tool[]>();
  /** Servers whose tools have been synced into the catalog at least once. */
  private readonly synced = new Set<string>();
  /** The search index build of the last synced catalog (background; `indexed` waits for it). */
  private indexing: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(options: CatalogSyncOptions) {
    this.o = options;
    this.policy = compilePolicy(options.config.policy);
  }

  /** Queues a sync of a server's newest tool list (coalesced with one already waiting). */
  onTools(server: string, tools: Tool[]): void {
    // A sync of this server already waits in the queue: it will take this newer list instead.
    const queued = this.pendingSyncs.has(server);
    this.pendingSyncs.set(server, tools);
    if (queued) return;
    void this.enqueue(async () => {
      const latest = this.pendingSyncs.get(server) ?? tools;
      this.pendingSyncs.delete(server);
      let r: Awaited<ReturnType<Toolgraph["syncServerTools"]>>;
      const admitted = await this.admit(server, latest);
      try {
        r = await this.o.api.syncServerTools(server, admitted, {
          project: this.o.project,
          retireAfterMs: this.o.retireAfterMs,
          embed: false,
        });
      } catch (err) {
        this.retrySyncLater(server, latest, err);
        throw err;
      }
      this.syncBackoffMs.delete(server);
      // The rows are in: a search from now on finds the tools (lexically until the index build below is done).
      this.synced.add(server);
      this.refused.set(server, new Set(r.rejected.map((x) => x.tool)));
      // What the next search answers from is readied now, in the sync (start() waits for it): the new graph's
      // analytics in their worker, the lexical index, the ranking's derived state. Else the first search after a
      // sync builds them, partly synchronously (the analytics of a new graph shape, the mention index).
      await this.o.api
        .warmUp("search", { project: this.o.project })
        .catch((err: unknown) =>
          this.o.log(`toolgraph gateway: readying the search failed: ${(err as Error)?.message ?? String(err)}`),
        );
      this.indexing = this.o.api
        .prepareSearch({ project: this.o.project })
        .catch((err: unknown) =>
          this.o.log(`toolgraph gateway: building the search index failed: ${(err as Error)?.message ?? String(err)}`),
        );
      for (const x of r.rejected.slice(0, 10))
        this.o.log(`toolgraph gateway: ${server}: tool ${x.tool} left out of the catalog: ${x.problem}`);
      if (r.rejected.length > 10)
        this.o.log(`toolgraph gateway: ${server}: … ${r.rejected.length - 10} more tools left out of the catalog`);
      if (r.unavailable.length > 0)
        this.o.log(`toolgraph gateway: ${server}: no longer listed, marked unavailable: ${boundList(r.unavailable)}`);
      if (r.retired.length > 0)
        this.o.log(
          `toolgraph gateway: ${server}: unlisted for over ${this.o.retireAfterMs} ms, retired: ${boundList(r.retired)}`,
        );
      this.o.onSynced();
    }, `syncing the tools of ${server}`);
  }

  private enqueue(job: () => Promise<unknown>, what: string): Promise<void> {
    this.running++;
    const next = this.queue
      .then(job)
      .then(
        () => undefined,
        (err) => this.o.log(`toolgraph gateway: ${what} failed: ${(err as Error)?.stack ?? String(err)}`),
      )
      .finally(() => {
        this.running--;
      });
    this.queue = next;
    return next;
  }

  /** Syncs (or sweeps) queued or running now. */
  private running = 0;

  /**
   * While a sync is queued or running, a promise of its end (and of every sync queued behind it), else
   * undefined: the gateway's searches wait for it (gateway-api.ts) rather than read a catalog half readied.
   */
  settling(): Promise<void> | undefined {
    return this.running > 0 ? this.done() : undefined;
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

  /**
   * The catalog tools of a server's list that the policy allows and the pins do not quarantine; the others are
   * remembered in `blocked` with their reason (call_tool refuses them) and logged (bounded).
   */
  private async admit(server: string, tools: Tool[]): Promise<Record<string, unknown>[]> {
    // The per-tool work (display-safe texts, safety tags, the pin hash) runs in slices between event-loop turns:
    // thousands of tools are hundreds of milliseconds of it. What call_tool reads (`blocked`) changes at the end,
    // at once.
    const slice = slicer();
    const blocked = new Map<string, string>();
    const allowed: { tool: Tool; catalog: Record<string, unknown>; hash: string }[] = [];
    for (const tool of tools) {
      const catalog = toCatalogTool(server, tool);
      const why = this.policy.denies({ id: catalog.id as string, server, safetyTags: catalog.safetyTags as string[] });
      if (why) blocked.set(catalog.id as string, why);
      else allowed.push({ tool, catalog, hash: toolHash(tool) });
      await slice();
    }
    const autoApprove = this.o.config.servers.get(server)?.autoApprove === true;
    const verdicts = await this.o.pins.checkInSlices(
      allowed.map(({ tool, catalog, hash }) => ({ id: catalog.id as string, tool, hash })),
      { autoApprove, now: new Date().toISOString() },
    );
    const out: Record<string, unknown>[] = [];
    const changed: string[] = [];
    for (const { catalog } of allowed) {
      const v = verdicts.get(catalog.id as string)!;
      if (v.state === "quarantined") blocked.set(catalog.id as string, v.reason);
      else out.push(catalog);
      if (v.state === "approved-change") changed.push(catalog.id as string);
    }
    for (const id of [...this.blocked.keys()]) if (id.startsWith(`${server}.`)) this.blocked.delete(id);
    for (const [id, why] of blocked) this.blocked.set(id, why);
    if (blocked.size > 0)
      this.o.log(
        `toolgraph gateway: ${server}: left out by the policy or quarantined: ${boundList([...blocked.keys()])}`,
      );
    if (changed.length > 0)
      this.o.log(
        `toolgraph gateway: ${server}: changed tools approved automatically (autoApprove): ${boundList(changed)}`,
      );
    return out;
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

  /**
   * A sync the database could not take (down at start, or a blip) is tried again with backoff (0.5 s doubling
   * to 10 s) unless a newer list of the server is already queued: tools listed during an outage still reach
   * the catalog when the database returns.
   */
  private retrySyncLater(server: string, tools: Tool[], err: unknown): void {
    const code = err instanceof ToolgraphError ? err.code : undefined;
    if (this.closed || (code !== "database-unreachable" && code !== "database-locked")) return;
    const delay = this.syncBackoffMs.get(server) ?? 500;
    this.syncBackoffMs.set(server, Math.min(10_000, delay * 2));
    setTimeout(() => {
      if (!this.closed && !this.pendingSyncs.has(server)) this.onTools(server, tools);
    }, delay).unref();
  }

  /** Retires the tools unlisted past the grace period that no sync touched (a server that stopped changing). */
  sweepRetired(): void {
    void this.enqueue(async () => {
      const retired = await this.o.api.retireUnavailableTools(this.o.retireAfterMs, { project: this.o.project });
      if (retired.length > 0)
        this.o.log(`toolgraph gateway: unlisted for over ${this.o.retireAfterMs} ms, retired: ${boundList(retired)}`);
    }, "retiring unlisted tools");
  }

  /**
   * The error a search gets on an empty catalog while upstreams are still being listed: which servers are
   * pending and why, instead of the CLI's "import a catalog" advice. Other errors pass unchanged.
   */
  explainEmpty(err: unknown): unknown {
    if (!(err instanceof ToolgraphError) || err.code !== "empty-project") return err;
    const all = [...this.o.upstreams.values()];
    const pending = all.filter((u) => !this.synced.has(u.name));
    const describe = (u: Upstream) => {
      const st = u.status();
      if (u.listed) return `${u.name} (listed ${st.tools} tools, being added to the catalog)`;
      const retry = st.retryAt ? `, retrying at ${st.retryAt}` : "";
      return `${u.name} (${st.state}${st.state === "down" && st.error ? `: ${boundLine(st.error, 300)}` : ""}${retry})`;
    };
    if (pending.length > 0) {
      return new ToolgraphError(
        "catalog-loading",
        `the gateway's catalog is still loading: no upstream tool is listed yet; pending: ${pending.map(describe).join("; ")}. Try again shortly (gateway_status shows progress)`,
        { project: this.o.project, pending: pending.map((u) => u.name) },
      );
    }
    return new ToolgraphError(
      "empty-project",
      `the gateway's upstream servers list no tools (${all.map((u) => u.name).join(", ")}): nothing to search`,
      {
        project: this.o.project,
        pending: [],
      },
    );
  }

  /** No retry is scheduled from now on. */
  close(): void {
    this.closed = true;
  }
}
