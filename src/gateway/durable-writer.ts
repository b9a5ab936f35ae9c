/**
 * Writes that must not be lost: a queue in front of the database that keeps what it cannot write yet and
 * retries it until it is stored (the gateway's recorded executions).
 *
 * - Items are written one at a time, in submission order while writes succeed. A write that fails retriably
 *   (the database is unreachable) is retried with exponential backoff (`minBackoffMs` doubling to
 *   `maxBackoffMs`) for as long as it takes; nothing behind it is written meanwhile. (Around an outage items
 *   held in memory may be written after newer spooled ones: each item must carry its own time.)
 * - While writes fail, and whenever more than `maxInMemory` items wait, items go to the spool: JSON-lines
 *   segment files of at most `segmentItems` items in `spoolDir`. A segment is deleted only once every item in
 *   it is stored, so a crash replays it (writes are idempotent by id: a replayed item that was stored is
 *   skipped by the store). `close()` spools whatever is still in memory; the next start replays the spool.
 * - A write that fails non-retriably (the store refuses the item) drops that item, counted as `rejected`; so
 *   does an item that failed `maxAttempts` times with an error that is not "unreachable" (a poison item must
 *   not stop the queue). When the spool holds `maxSpoolBytes`, new items are dropped and counted.
 * Defaults and their reasons: docs/decisions/gateway-durable-recording.md.
 */

import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pidAlive } from "../store/data-dir-lock.ts";

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

/** Segment names sort by creation: `<state>-<ms, 13 digits>-<sequence, 8 digits>-<pid>-<random>.jsonl`. */
const SEGMENT = /^seg-\d+-\d+-\d+-[0-9a-f]+\.jsonl$/;
const OPEN = /^open-\d+-\d+-(\d+)-[0-9a-f]+\.jsonl$/;
/** Per process, so two writers in one process (a restart) never name a segment alike. */
let segmentSeq = 0;

export class DurableWriter<T> {
  private readonly o: Required<Omit<DurableWriterOptions<T>, "spoolDir" | "log" | "setTimer">> &
    Pick<DurableWriterOptions<T>, "spoolDir" | "log"> & { setTimer: (fn: () => void, ms: number) => NodeJS.Timeout };
  private readonly queue: Entry<T>[] = [];
  /** Closed segment files on disk not yet read, oldest first. */
  private readonly pending: string[] = [];
  /** Items not yet stored per segment that has been read. */
  private readonly remaining = new Map<string, number>();
  private open: { path: string; items: number } | undefined;
  private spooledItems = 0;
  private spoolBytes = 0;
  private running = false;
  /** True while a segment is being read (it has left `pending` and not yet reached `queue`). */
  private loading = false;
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
      spoolDir: options.spoolDir,
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
    if (this.o.spoolDir) this.adoptSpool(this.o.spoolDir);
  }

  /** Segments left by an earlier process (closed ones, and open ones whose writer is dead) join the backlog. */
  private adoptSpool(dir: string): void {
    if (!existsSync(dir)) return; // created on the first spill only
    const names = readdirSync(dir).sort();
    for (const name of names) {
      const open = OPEN.exec(name);
      if (open && !pidAlive(Number(open[1]))) {
        const closed = name.replace(/^open-/, "seg-");
        renameSync(join(dir, name), join(dir, closed));
      }
    }
    for (const name of readdirSync(dir).sort()) {
      if (!SEGMENT.test(name)) continue;
      const path = join(dir, name);
      const text = readFileSync(path, "utf8");
      const items = text.split("\n").filter((l) => l.trim() !== "").length;
      this.pending.push(path);
      this.remaining.set(path, items);
      this.spooledItems += items;
      this.spoolBytes += Buffer.byteLength(text);
    }
    if (this.pending.length > 0)
      this.o.log?.(`durable writer: ${this.spooledItems} spooled item(s) from an earlier run to write`);
  }

  /** Queues an item; it is written as soon as everything before it is. */
  submit(item: T): void {
    if (this.closed) throw new Error("durable writer: submit after close");
    const spill =
      this.o.spoolDir !== undefined &&
      (this.lastError !== undefined ||
        this.queue.length >= this.o.maxInMemory ||
        this.pending.length > 0 ||
        this.open !== undefined);
    if (spill) this.spool([item]);
    else this.queue.push({ item, attempts: 0 });
    this.kick();
  }

  /** Starts writing what an earlier process spooled (submit() starts the writer too). */
  resume(): void {
    this.kick();
  }

  status(): DurableWriterStatus {
    const inMemory = this.queue.length;
    return {
      written: this.stats.written,
      backlog: inMemory + this.spooledItems,
      inMemory,
      spooled: this.spooledItems,
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
      if (this.o.spoolDir) this.spool(fresh);
      else {
        this.stats.dropped += fresh.length;
        this.o.log?.(`durable writer: ${fresh.length} item(s) not stored and no spool directory: dropped`);
      }
    }
    this.closeOpenSegment();
  }

  private isEmpty(): boolean {
    return this.queue.length === 0 && this.pending.length === 0 && this.open === undefined && !this.loading;
  }

  private spool(items: T[]): void {
    const dir = this.o.spoolDir!;
    for (const item of items) {
      const line = `${JSON.stringify(item)}\n`;
      const bytes = Buffer.byteLength(line);
      if (this.spoolBytes + bytes > this.o.maxSpoolBytes) {
        this.stats.dropped++;
        if (this.stats.dropped === 1 || this.stats.dropped % 1000 === 0) {
          this.o.log?.(
            `durable writer: spool full (${this.o.maxSpoolBytes} bytes): ${this.stats.dropped} item(s) dropped`,
          );
        }
        continue;
      }
      if (!this.open) {
        mkdirSync(dir, { recursive: true });
        const seq = String(segmentSeq++).padStart(8, "0");
        const name = `open-${String(Date.now()).padStart(13, "0")}-${seq}-${process.pid}-${randomBytes(4).toString("hex")}.jsonl`;
        this.open = { path: join(dir, name), items: 0 };
      }
      appendFileSync(this.open.path, line);
      this.open.items++;
      this.spooledItems++;
      this.spoolBytes += bytes;
      if (this.open.items >= this.o.segmentItems) this.closeOpenSegment();
    }
  }

  private closeOpenSegment(): void {
    if (!this.open) return;
    const closed = join(dirname(this.open.path), basename(this.open.path).replace(/^open-/, "seg-"));
    renameSync(this.open.path, closed);
    this.pending.push(closed);
    this.remaining.set(closed, this.open.items);
    this.open = undefined;
  }

  /** Reads the oldest segment into memory (its items leave the spool count as they are stored). */
  private async loadSegment(): Promise<void> {
    if (this.pending.length === 0) this.closeOpenSegment();
    const path = this.pending.shift();
    if (!path) return;
    let text: string;
    this.loading = true;
    try {
      text = await readFile(path, "utf8");
    } catch {
      return; // removed by another process that replayed it
    } finally {
      this.loading = false;
    }
    const size = Buffer.byteLength(text);
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    const counted = this.remaining.get(path) ?? 0;
    let n = 0;
    for (const line of lines) {
      try {
        this.queue.push({ item: JSON.parse(line) as T, segment: path, attempts: 0 });
        n++;
      } catch {
        this.stats.rejected++;
        this.o.log?.(`durable writer: ${path}: an unreadable line was skipped`);
      }
    }
    this.spooledItems += n - counted; // (a segment of another process may have changed since it was counted)
    this.remaining.set(path, n);
    this.spoolBytes -= size;
    if (n === 0) this.finishSegment(path);
  }

  private finishSegment(path: string): void {
    this.remaining.delete(path);
    rmSync(path, { force: true });
  }

  private settle(entry: Entry<T>): void {
    if (entry.segment === undefined) return;
    this.spooledItems--;
    const left = (this.remaining.get(entry.segment) ?? 1) - 1;
    if (left <= 0) this.finishSegment(entry.segment);
    else this.remaining.set(entry.segment, left);
  }

  private kick(): void {
    if (this.running || this.timer !== undefined || this.closed) return;
    this.running = true;
    void this.run()
      .catch((err) => this.o.log?.(`durable writer: ${(err as Error)?.stack ?? String(err)}`))
      .finally(() => this.kickIfWaiting());
  }

  /** After an unexpected error in run(): carry on if work is left and nothing else will start it. */
  private kickIfWaiting(): void {
    if (!this.isEmpty() && !this.running && this.timer === undefined && !this.closed) this.kick();
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
        if (this.pending.length > 0 || this.open !== undefined) {
          await this.loadSegment();
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
        if (this.closed) return;
        this.stats.failedAttempts++;
        entry.attempts++;
        const kind = this.o.classify(err);
        const message = (err as Error)?.message ?? String(err);
        if (kind === "reject" || (kind === "unknown" && entry.attempts >= this.o.maxAttempts)) {
          this.queue.shift();
          this.settle(entry);
          this.stats.rejected++;
          this.o.log?.(`durable writer: item dropped after ${entry.attempts} attempt(s): ${message.slice(0, 300)}`);
          continue;
        }
        const first = this.lastError === undefined;
        this.lastError = message.slice(0, 300);
        if (first) {
          this.o.log?.(`durable writer: write failed, keeping the backlog and retrying: ${this.lastError}`);
          // Writes fail: what waits in memory goes to disk, so a crash during the outage loses nothing.
          if (this.o.spoolDir) {
            const rest = this.queue.splice(1);
            const fresh = rest.filter((e) => e.segment === undefined);
            this.queue.push(...rest.filter((e) => e.segment !== undefined));
            this.spool(fresh.map((e) => e.item));
          }
        }
        const delay = this.backoff;
        this.backoff = Math.min(this.o.maxBackoffMs, this.backoff * 2);
        this.timer = this.o.setTimer(() => {
          this.timer = undefined;
          this.kick();
        }, delay);
        this.timer.unref?.();
        return;
      }
    }
  }
}
