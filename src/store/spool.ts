/**
 * The durable writer's spool (durable-writer.ts): JSON-lines segment files of at most `segmentItems` items in a
 * directory of the data directory. A segment is written as `open-…`, renamed `seg-…` once full (or at close),
 * read back oldest first, and deleted only once every item read from it is stored, so a crash replays it (writes
 * are idempotent by id). Segments left by an earlier process (closed ones, and open ones whose writer is dead)
 * join the backlog at start. When the spool holds `maxSpoolBytes`, new items are dropped and counted.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pidAlive } from "./data-dir-lock.ts";

/** Segment names sort by creation: `<state>-<ms, 13 digits>-<sequence, 8 digits>-<pid>-<random>.jsonl`. */
const SEGMENT = /^seg-\d+-\d+-\d+-[0-9a-f]+\.jsonl$/;
const OPEN = /^open-\d+-\d+-(\d+)-[0-9a-f]+\.jsonl$/;
/** Per process, so two writers in one process (a restart) never name a segment alike. */
let segmentSeq = 0;

export interface SpoolOptions {
  segmentItems: number;
  maxSpoolBytes: number;
  log?: ((line: string) => void) | undefined;
  /** Counters shared with the writer: items dropped (spool full) and unreadable lines skipped. */
  stats: { dropped: number; rejected: number };
}

export class Spool<T> {
  /** Closed segment files on disk not yet read, oldest first. */
  private readonly pending: string[] = [];
  /** Items not yet stored per segment that has been read. */
  private readonly remaining = new Map<string, number>();
  private open: { path: string; items: number } | undefined;
  private bytes = 0;
  /** True while a segment is being read (it has left `pending` and not yet reached the writer's queue). */
  private loading = false;
  /** Items in the spool (on disk, including those read and not yet stored). */
  items = 0;

  constructor(
    private readonly dir: string,
    private readonly o: SpoolOptions,
  ) {
    this.adopt();
  }

  /** Segments on disk (closed or open) wait to be read. */
  get waiting(): boolean {
    return this.pending.length > 0 || this.open !== undefined;
  }

  /** Nothing waits on disk and no segment is being read. */
  get idle(): boolean {
    return !this.waiting && !this.loading;
  }

  /** Segments left by an earlier process (closed ones, and open ones whose writer is dead) join the backlog. */
  private adopt(): void {
    const dir = this.dir;
    if (!existsSync(dir)) return; // created on the first spill only
    for (const name of readdirSync(dir).sort()) {
      const open = OPEN.exec(name);
      if (open && !pidAlive(Number(open[1]))) renameSync(join(dir, name), join(dir, name.replace(/^open-/, "seg-")));
    }
    for (const name of readdirSync(dir).sort()) {
      if (!SEGMENT.test(name)) continue;
      const path = join(dir, name);
      const text = readFileSync(path, "utf8");
      const items = text.split("\n").filter((l) => l.trim() !== "").length;
      this.pending.push(path);
      this.remaining.set(path, items);
      this.items += items;
      this.bytes += Buffer.byteLength(text);
    }
    if (this.pending.length > 0)
      this.o.log?.(`durable writer: ${this.items} spooled item(s) from an earlier run to write`);
  }

  append(items: T[]): void {
    for (const item of items) {
      const line = `${JSON.stringify(item)}\n`;
      const bytes = Buffer.byteLength(line);
      if (this.bytes + bytes > this.o.maxSpoolBytes) {
        const dropped = ++this.o.stats.dropped;
        if (dropped === 1 || dropped % 1000 === 0)
          this.o.log?.(`durable writer: spool full (${this.o.maxSpoolBytes} bytes): ${dropped} item(s) dropped`);
        continue;
      }
      if (!this.open) {
        mkdirSync(this.dir, { recursive: true });
        const seq = String(segmentSeq++).padStart(8, "0");
        const name = `open-${String(Date.now()).padStart(13, "0")}-${seq}-${process.pid}-${randomBytes(4).toString("hex")}.jsonl`;
        this.open = { path: join(this.dir, name), items: 0 };
      }
      appendFileSync(this.open.path, line);
      this.open.items++;
      this.items++;
      this.bytes += bytes;
      if (this.open.items >= this.o.segmentItems) this.closeOpen();
    }
  }

  closeOpen(): void {
    if (!this.open) return;
    const closed = join(dirname(this.open.path), basename(this.open.path).replace(/^open-/, "seg-"));
    renameSync(this.open.path, closed);
    this.pending.push(closed);
    this.remaining.set(closed, this.open.items);
    this.open = undefined;
  }

  /** Reads the oldest segment (its items leave the spool count as they are settled). */
  async load(): Promise<{ item: T; segment: string }[]> {
    if (this.pending.length === 0) this.closeOpen();
    const path = this.pending.shift();
    if (!path) return [];
    let text: string;
    this.loading = true;
    try {
      text = await readFile(path, "utf8");
    } catch {
      return []; // removed by another process that replayed it
    } finally {
      this.loading = false;
    }
    const out: { item: T; segment: string }[] = [];
    for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
      try {
        out.push({ item: JSON.parse(line) as T, segment: path });
      } catch {
        this.o.stats.rejected++;
        this.o.log?.(`durable writer: ${path}: an unreadable line was skipped`);
      }
    }
    this.items += out.length - (this.remaining.get(path) ?? 0); // (another process's segment may have changed)
    this.remaining.set(path, out.length);
    this.bytes -= Buffer.byteLength(text);
    if (out.length === 0) this.finish(path);
    return out;
  }

  /** One item read from `segment` is stored (or dropped): the segment goes once all of its items are. */
  settle(segment: string): void {
    this.items--;
    const left = (this.remaining.get(segment) ?? 1) - 1;
    if (left <= 0) this.finish(segment);
    else this.remaining.set(segment, left);
  }

  private finish(path: string): void {
    this.remaining.delete(path);
    rmSync(path, { force: true });
  }
}
