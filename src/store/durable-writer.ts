/**
 * Writes that must not be lost: a queue in front of the database that keeps what it cannot write yet and
 * retries it until it is stored (the gateway's recorded executions).
 *
 * - Items are written one at a time, in submission order while writes succeed. A write that fails retriably
 *   (the database is unreachable) is retried with exponential backoff (algorithms/timing/backoff.ts:
 *   `minBackoffMs` doubling to `maxBackoffMs`) for as long as it takes; nothing behind it is written meanwhile.
 *   (Around an outage items held in memory may be written after newer spooled ones: each item must carry its
 *   own time.)
 * - While writes fail, and whenever more than `maxInMemory` items wait, items go to the spool (spool.ts) in
 *   `spoolDir`; a crash replays it (writes are idempotent by id). `close()` spools whatever is still in memory;
 *   the next start replays the spool.
 * - A write that fails non-retriably (the store refuses the item) drops that item, counted as `rejected`; so
 *   does an item that failed `maxAttempts` times with an error that is not "unreachable" (a poison item must
 *   not stop the queue). When the spool holds `maxSpoolBytes`, new items are dropped and counted.
 * Defaults and their reasons: docs/decisions/gateway-durable-recording.md.
 */
import { nextBackoff } from "../../algorithms/timing/backoff.ts";
import { Spool } from "./spool.ts";

export const DURABLE_WRITER_DEFAULTS = {
  /** First retry delay after a failed write (ms); doubles per failure. */
  minBackoffMs: 250,
  /** Longest retry delay (ms). */
  maxBackoffMs: 10_000,
  /** Items held in memory before new ones go to the spool (with a spool directory). */
  maxInMemory: 1_000,
  /** Items per spool segment file. */
  segmentItems: 1_000,
  /** Bound on the spool's size on disk (bytes); beyond it new items are dropped and counted. */
  maxSpoolBytes: 256 * 1024 * 1024,
  /** Failures of one item with an error that is not "unreachable" before it is dropped. */
  maxAttempts: 5,
} as const;

export interface DurableWriterOptions<T> {
  /** Stores one item; throws when it cannot. */
  write: (item: T) => Promise<void>;
  /** "retry" for a failure worth waiting out (the database is unreachable), "reject" when the item itself is
   *  refused, "unknown" otherwise (retried up to `maxAttempts`). */
  classify: (err: unknown) => "retry" | "reject" | "unknown";
  /** Where to spool; undefined keeps everything in memory (lost with the process). */
  spoolDir?: string | undefined;
  minBackoffMs?: number | undefined;
  maxBackoffMs?: number | undefined;
  maxInMemory?: number | undefined;
  segmentItems?: number | undefined;
  maxSpoolBytes?: number | undefined;
  maxAttempts?: number | undefined;
  log?: ((line: string) => void) | undefined;
  /** Schedules a retry (a clock seam for tests). Default setTimeout. */
  setTimer?: ((fn: () => void, ms: number) => NodeJS.Timeout) | undefined;
}

export interface DurableWriterStatus {
  /** Items stored. */
  written: number;
  /** Items waiting: in memory and in the spool. */
  backlog: number;
  inMemory: number;
  spooled: number;
  /** Items the store refused (or that failed maxAttempts times), dropped. */
  rejected: number;
  /** Items dropped because the spool was full. */
  dropped: number;
  /** Failed write attempts so far. */
  failedAttempts: number;
  /** True while the last write failed and a retry is scheduled. */
  retrying: boolean;
  lastError?: string | undefined;
}

interface Entry<T> {
  item: T;
  /** The spool segment the item was read from (deleted once all its items are stored). */
  segment?: string | undefined;
  attempts: number;
}

export class DurableWriter<T> {
  private readonly o: Required<Omit<DurableWriterOptions<T>, "spoolDir" | "log" | "setTimer">> &
    Pick<DurableWriterOptions<T>, "log"> & { setTimer: (fn: () => void, ms: number) => NodeJS.Timeout };
  private readonly queue: Entry<T>[] = [];
  private readonly spool: Spool<T> | undefined;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private backoff: number;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private readonly stats = { written: 0, rejected: 0, dropped: 0, failedAttempts: 0 };
  private lastError: string | undefined;

  constructor(options: DurableWriterOptions<T>) {
    const d = DURABLE_WRITER_DEFAULTS;
    this.o = {
      write: options.write,
      classify: options.classify,
      log: options.log,
      setTimer: options.setTimer ?? ((fn, ms) => setTimeout(fn, ms)),
      minBackoffMs: options.minBackoffMs ?? d.minBackoffMs,
      maxBackoffMs: options.maxBackoffMs ?? d.maxBackoffMs,
      maxInMemory: options.maxInMemory ?? d.maxInMemory,
      segmentItems: options.segmentItems ?? d.segmentItems,
      maxSpoolBytes: options.maxSpoolBytes ?? d.maxSpoolBytes,
      maxAttempts: options.maxAttempts ?? d.maxAttempts,
    };
    this.backoff = this.o.minBackoffMs;
    if (options.spoolDir) {
      const { segmentItems, maxSpoolBytes, log } = this.o;
      this.spool = new Spool<T>(options.spoolDir, { segmentItems, maxSpoolBytes, log, stats: this.stats });
    }
  }

  /** Queues an item; it is written as soon as everything before it is. */
  submit(item: T): void {
    if (this.closed) throw new Error("durable writer: submit after close");
    const spill =
      this.spool !== undefined &&
      (this.lastError !== undefined || this.queue.length >= this.o.maxInMemory || this.spool.waiting);
    if (spill) this.spool!.append([item]);
    else this.queue.push({ item, attempts: 0 });
    this.kick();
  }

  /** Starts writing what an earlier process spooled (submit() starts the writer too). */
  resume(): void {
    this.kick();
  }

  status(): DurableWriterStatus {
    const inMemory = this.queue.length;
    const spooled = this.spool?.items ?? 0;
    return {
      written: this.stats.written,
      backlog: inMemory + spooled,
      inMemory,
      spooled,
      rejected: this.stats.rejected,
      dropped: this.stats.dropped,
      failedAttempts: this.stats.failedAttempts,
      retrying: this.timer !== undefined,
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
    };
  }

  /** Resolves once the backlog is empty (every item stored or dropped). Never resolves during an outage. */
  drained(): Promise<void> {
    if (this.isEmpty()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops: waits up to `graceMs` for the backlog to drain, then spools what is still in memory (without a
   * spool directory it is lost, and counted as dropped).
   */
  async close(graceMs = 5_000): Promise<void> {
    if (this.closed) return;
    if (!this.isEmpty() && graceMs > 0) {
      let t: NodeJS.Timeout | undefined;
      await Promise.race([this.drained(), new Promise((r) => (t = setTimeout(r, graceMs)))]);
      clearTimeout(t);
    }
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    // Items read from a segment are still in it; only the others need spooling.
    const fresh = this.queue.filter((e) => e.segment === undefined).map((e) => e.item);
    this.queue.length = 0;
    if (fresh.length > 0) {
      if (this.spool) this.spool.append(fresh);
      else {
        this.stats.dropped += fresh.length;
        this.o.log?.(`durable writer: ${fresh.length} item(s) not stored and no spool directory: dropped`);
      }
    }
    this.spool?.closeOpen();
  }

  private isEmpty(): boolean {
    return this.queue.length === 0 && (this.spool?.idle ?? true);
  }

  private settle(entry: Entry<T>): void {
    if (entry.segment !== undefined) this.spool?.settle(entry.segment);
  }

  private kick(): void {
    if (this.running || this.timer !== undefined || this.closed) return;
    this.running = true;
    void this.run()
      .catch((err) => this.o.log?.(`durable writer: ${(err as Error)?.stack ?? String(err)}`))
      .finally(() => {
        // After an unexpected error in run(): carry on if work is left and nothing else will start it.
        if (!this.isEmpty() && !this.running && this.timer === undefined && !this.closed) this.kick();
      });
  }

  private async run(): Promise<void> {
    try {
      await this.loop();
    } finally {
      // Synchronously at the return, so a submit() right after sees the loop stopped and starts it.
      this.running = false;
    }
  }

  private async loop(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      if (this.queue.length === 0) {
        if (this.spool?.waiting) {
          for (const e of await this.spool.load()) this.queue.push({ ...e, attempts: 0 });
          continue;
        }
        for (const w of this.idleWaiters.splice(0)) w();
        return;
      }
      const entry = this.queue[0]!;
      try {
        await this.o.write(entry.item);
        if (this.closed) return; // close() has spooled the item meanwhile: a replay finds it stored (idempotent)
        this.queue.shift();
        this.settle(entry);
        this.stats.written++;
        this.backoff = this.o.minBackoffMs;
        if (this.lastError !== undefined)
          this.o.log?.(`durable writer: writing again after ${this.stats.failedAttempts} failed attempt(s)`);
        this.lastError = undefined;
      } catch (err) {
        if (this.closed || this.failed(entry, err)) return;
      }
    }
  }

  /** A failed write: drops a refused (or poison) item and carries on (false), or schedules the retry (true). */
  private failed(entry: Entry<T>, err: unknown): boolean {
    this.stats.failedAttempts++;
    entry.attempts++;
    const kind = this.o.classify(err);
    const message = (err as Error)?.message ?? String(err);
    if (kind === "reject" || (kind === "unknown" && entry.attempts >= this.o.maxAttempts)) {
      this.queue.shift();
      this.settle(entry);
      this.stats.rejected++;
      this.o.log?.(`durable writer: item dropped after ${entry.attempts} attempt(s): ${message.slice(0, 300)}`);
      return false;
    }
    const first = this.lastError === undefined;
    this.lastError = message.slice(0, 300);
    if (first) {
      this.o.log?.(`durable writer: write failed, keeping the backlog and retrying: ${this.lastError}`);
      // Writes fail: what waits in memory goes to disk, so a crash during the outage loses nothing.
      if (this.spool) {
        const rest = this.queue.splice(1);
        this.queue.push(...rest.filter((e) => e.segment !== undefined));
        this.spool.append(rest.filter((e) => e.segment === undefined).map((e) => e.item));
      }
    }
    const delay = this.backoff;
    this.backoff = nextBackoff(this.backoff, this.o.maxBackoffMs);
    this.timer = this.o.setTimer(() => {
      this.timer = undefined;
      this.kick();
    }, delay);
    this.timer.unref?.();
    return true;
  }
}
