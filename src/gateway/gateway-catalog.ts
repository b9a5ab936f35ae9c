/**
 * The gateway's upstream servers and their tools in the project's catalog: it connects to every upstream of the
 * config (gateway-upstreams.ts, upstream.ts), keeps their tools in the catalog (catalog-sync.ts, admitted by the
 * policy and the pins: trust.ts), retires tools unlisted too long, and says what is refused and what is still
 * loading. The sessions, the recording and the status are gateway.ts's.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Toolgraph } from "../library/toolgraph.ts";
import { boundLine } from "./bounded-line.ts";
import { CatalogSync } from "./catalog-sync.ts";
import { GATEWAY_DEFAULTS, type GatewayOptions } from "./gateway-options.ts";
import { createUpstreams, upstreamTool } from "./gateway-upstreams.ts";
import { PinStore } from "./trust.ts";
import type { Upstream } from "./upstream.ts";

export abstract class GatewayCatalog {
  readonly upstreams: Map<string, Upstream>;
  readonly pins: PinStore;
  protected readonly catalog: CatalogSync;
  protected closed = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Moves whenever an upstream lists its tools (the key of the sessions' policy caches). */
  protected listings = 0;
  /** The start in progress (its upstreams' first attempt and catalog sync), if one is. */
  private starting: Promise<void> | undefined;

  constructor(
    readonly api: Toolgraph,
    readonly options: GatewayOptions,
  ) {
    this.pins = new PinStore(options.pinFile);
    const log = (l: string) => this.log(l);
    const onTools = (server: string, tools: Tool[]) => {
      this.listings++;
      this.catalog.onTools(server, tools);
    };
    this.upstreams = createUpstreams(options, onTools, log);
    const { project, retireAfterMs, upstreams, pins } = this;
    const onSynced = () => this.synced();
    this.catalog = new CatalogSync({
      api,
      project,
      config: options.config,
      upstreams,
      pins,
      retireAfterMs,
      log,
      onSynced,
    });
  }

  /** After each sync that reached the catalog. */
  protected abstract synced(): void;
  /** At the end of `start()`. */
  protected abstract started(): void;

  get project(): string {
    return this.options.project ?? this.api.project;
  }

  get retireAfterMs(): number {
    return this.options.retireAfterMs ?? GATEWAY_DEFAULTS.retireAfterMs;
  }

  protected log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(boundLine(line));
  }

  /** Why a tool is refused (policy or quarantine), or undefined; re-reads the pin file if it was approved since. */
  refusal(id: string): string | undefined {
    return this.catalog.refusal(id);
  }

  /** Tools quarantined now (changed since first seen, waiting for approval). */
  quarantined(): { tool: string; since: string; firstSeen: string }[] {
    return this.catalog.quarantined();
  }

  /** The upstream tool behind a catalog id, if its server currently lists it. */
  upstreamTool(id: string): { server: string; upstream: Upstream; tool: Tool } | undefined {
    return upstreamTool(this.upstreams, id);
  }

  /**
   * While the gateway starts (its upstreams' first listing and catalog sync), a promise of its end, else
   * undefined: the served api's operations wait for it (gateway-api.ts). A session can be served before
   * `start()` resolves (initialize needs no catalog); its first search then waits for the catalog, or, past
   * `syncWaitMs`, says which servers are still pending. Later syncs are not waited for: they are staged, and
   * searches meanwhile answer from the catalog published before them (catalog-sync.ts).
   */
  settling(): Promise<void> | undefined {
    return this.starting;
  }

  /** The error a search gets on an empty catalog while upstreams are still being listed (catalog-report.ts). */
  explainEmpty(err: unknown): unknown {
    return this.catalog.explainEmpty(err);
  }

  /**
   * Connects every upstream (in parallel) and waits for their first attempt and catalog sync; with
   * `waitForEmbeddings` (default true) also for the search index (the tools' embeddings). Without it, searches
   * answer lexically until the embeddings are in (`degraded: "embedding"`): the CLI serves at once.
   */
  async start(options: { waitForEmbeddings?: boolean } = {}): Promise<void> {
    const run = this.startNow(options);
    this.starting = run;
    try {
      await run;
    } finally {
      if (this.starting === run) this.starting = undefined;
    }
  }

  /** While the gateway starts, a promise of its end (a call_tool served meanwhile waits for it). */
  inStart(): Promise<void> | undefined {
    return this.starting;
  }

  private async startNow(options: { waitForEmbeddings?: boolean }): Promise<void> {
    if (!this.sweepTimer && !this.closed) {
      const every = Math.max(1, Math.min(this.retireAfterMs, GATEWAY_DEFAULTS.retireSweepMs));
      this.sweepTimer = setInterval(() => this.catalog.sweepRetired(), every);
      this.sweepTimer.unref();
    }
    // Readied while the upstreams connect: the analytics worker and, on a home that has a catalog, its search.
    void this.api.warmUp("search", { project: this.project }).catch(() => undefined);
    await Promise.all([...this.upstreams.values()].map((u) => u.start()));
    await this.catalog.done();
    if (options.waitForEmbeddings ?? true) await this.catalog.indexed();
    this.started();
  }

  /** Resolves once the catalog's search index is built (its embeddings computed): searches rank with every channel. */
  indexed(): Promise<void> {
    return this.catalog.indexed();
  }

  /** No more syncs are retried, no more sweeps run. */
  protected stopSyncing(): void {
    this.closed = true;
    this.catalog.close();
    clearInterval(this.sweepTimer);
  }
}
