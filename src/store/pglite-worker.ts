/**
 * The embedded database on its own thread (why and the measurement: docs/decisions/pglite-worker.md).
 * PGlite's WebAssembly and file I/O run in a worker (pglite-worker-entry.ts), so a statement never blocks
 * this process's event loop; node-postgres talks to it as to a server, through a Duplex stream per
 * connection whose writes are posted to the worker (buffers transferred, one message per tick) and whose
 * reads are the worker's replies.
 *
 * - Order: the worker executes messages in arrival order, one at a time; every post gets one reply.
 * - One connection at a time (the pool's max is 1): PGlite is one session. A connection closed inside a
 *   transaction leaves no transaction open for the next.
 * - The data directory's lock stays with this process (data-dir-lock.ts); the worker only opens it.
 * - Crash: a worker that dies (an abort in the WebAssembly, an uncaught error, terminate) ends every open
 *   connection with an ECONNRESET error, which the resilient pool reports as database-unreachable; a new
 *   worker on the same directory starts at once (a connection meanwhile waits for it, within its connect
 *   timeout). An in-memory database died with its worker: every later connection fails the same way.
 * - The worker keeps the process alive only while a reply is awaited (or it opens or closes).
 * - TOOLGRAPH_PGLITE_THREAD=main runs PGlite on this thread instead, through PGlite's own node-postgres
 *   adapter (the previous default, kept to measure against and as a way out).
 */
import type { OpenPGliteOptions } from "./pglite-template.ts";
import { Duplex } from "node:stream";
import { Worker } from "node:worker_threads";
import type pg from "pg";
import { ToolgraphError } from "../contract/errors.ts";

type Reply =
  | { type: "ready" }
  | { type: "open-failed"; message: string }
  | { type: "data"; id: number; buf: ArrayBuffer }
  | { type: "error"; id: number; message: string }
  | { type: "closed" };

/** Starts the worker thread, from the compiled package or from the TypeScript sources. */
function spawn(home: string, open: OpenPGliteOptions): Worker {
  const options = { workerData: { home, open }, execArgv: [] as string[] };
  if (import.meta.url.endsWith(".js")) return new Worker(new URL("./pglite-worker-entry.js", import.meta.url), options);
  // A worker's entry file is resolved before any loader hook, so from the sources the entry is a small
  // script that registers tsx's ESM hooks in the worker and then imports the TypeScript module.
  const entry = new URL("./pglite-worker-entry.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

function lost(message: string): Error {
  return Object.assign(new Error(`the embedded database's thread stopped: ${message}`), { code: "ECONNRESET" });
}

/** One worker life: the thread, its open state and its connections. */
class Life {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  readonly sockets = new Map<number, WorkerSocket>();
  dead: Error | undefined;
  #awaited = 0;
  #closed: (() => void) | undefined;

  /** Called once when the worker dies after it had opened the database (not when it is closed). */
  onCrash: (() => void) | undefined;

  constructor(home: string, open: OpenPGliteOptions) {
    this.worker = spawn(home, open);
    this.worker.unref();
    this.hold();
    let settle!: (err?: Error) => void;
    let opened = false;
    this.ready = new Promise<void>((resolve, reject) => {
      settle = (err) => (err ? reject(err) : resolve());
    });
    this.ready.catch(() => {});
    this.worker.on("message", (m: Reply) => {
      if (m.type === "ready") {
        this.release();
        opened = true;
        settle();
      } else if (m.type === "open-failed") {
        this.release();
        // Connections waiting on a new worker fail as unreachable; the first open fails with PGlite's message.
        this.die(lost(m.message));
        settle(new Error(m.message));
      } else if (m.type === "data") {
        this.release();
        this.sockets.get(m.id)?.receive(Buffer.from(m.buf));
      } else if (m.type === "error") {
        this.release();
        this.sockets.get(m.id)?.destroy(lost(m.message));
      } else if (m.type === "closed") {
        this.#closed?.();
      }
    });
    const crash = (err: Error) => {
      const was = this.dead;
      this.die(lost(err.message));
      settle(this.dead);
      if (!was && opened) this.onCrash?.();
    };
    this.worker.on("error", crash);
    this.worker.on("exit", (code) => crash(new Error(`exit code ${code}`)));
  }

  /** A reply is awaited: the worker keeps the process alive until it comes. */
  hold(): void {
    if (this.#awaited++ === 0) this.worker.ref();
  }

  release(): void {
    if (this.#awaited > 0 && --this.#awaited === 0) this.worker.unref();
  }

  die(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    this.#awaited = 0;
    this.worker.unref();
    for (const s of [...this.sockets.values()]) s.destroy(err);
    this.sockets.clear();
    this.#closed?.();
  }

  post(message: object, transfer?: ArrayBuffer[]): void {
    this.worker.postMessage(message, transfer);
  }

  async close(): Promise<void> {
    if (this.dead) return;
    const closed = new Promise<void>((resolve) => {
      this.#closed = resolve;
    });
    this.hold();
    this.post({ type: "close" });
    await closed;
    this.dead ??= new Error("closed");
    await this.worker.terminate();
  }
}

/**
 * Bytes of a reply handed to node-postgres per event-loop turn. It parses every row of what it is given at
 * once (parseRow, parseDate): the rows of a whole catalog read back after a sync, in one piece, held the loop
 * over 100 ms (docs/decisions/gateway-first-answer.md).
 */
export const READ_SLICE_BYTES = 64 * 1024;

/** A connection to the worker's database, as node-postgres's Connection uses a socket. */
class WorkerSocket extends Duplex {
  #pending: Buffer[] = [];
  #scheduled = false;
  #ended = false;
  /** Slices of replies not yet handed to node-postgres, in order (one per event-loop turn). */
  #incoming: Buffer[] = [];
  /** Ended on this side while slices were waiting: the stream's end follows the last of them. */
  #endAfterIncoming = false;

  constructor(
    private readonly life: Life,
    private readonly id: number,
  ) {
    super();
  }

  connect(): this {
    if (this.life.dead) {
      const err = this.life.dead;
      process.nextTick(() => this.destroy(err));
      return this;
    }
    this.life.sockets.set(this.id, this);
    process.nextTick(() => this.emit("connect"));
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  receive(buf: Buffer): void {
    if (buf.length === 0) return;
    const idle = this.#incoming.length === 0;
    if (idle && buf.length <= READ_SLICE_BYTES) {
      this.push(buf);
      return;
    }
    for (let at = 0; at < buf.length; at += READ_SLICE_BYTES)
      this.#incoming.push(buf.subarray(at, at + READ_SLICE_BYTES));
    if (idle) this.#drain();
  }

  /** Hands the next slice to node-postgres, and the one after it at the next turn of the event loop. */
  #drain(): void {
    if (this.destroyed) {
      this.#incoming = [];
      return;
    }
    const next = this.#incoming.shift();
    if (next) this.push(next);
    if (this.#incoming.length > 0) setImmediate(() => this.#drain());
    else if (this.#endAfterIncoming) this.push(null);
  }

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.life.dead) {
      cb(this.life.dead);
      return;
    }
    this.#pending.push(chunk);
    // The messages written in one tick (parse, bind, describe, execute, sync) go in one post.
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => this.#flush());
    }
    cb();
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0 || this.life.dead) return;
    const total = this.#pending.reduce((n, b) => n + b.length, 0);
    // A fresh ArrayBuffer: a small Buffer is a view of a shared pool that must not be transferred.
    const buf = new ArrayBuffer(total);
    const bytes = new Uint8Array(buf);
    let at = 0;
    for (const b of this.#pending) {
      bytes.set(b, at);
      at += b.length;
    }
    this.#pending = [];
    this.life.hold();
    this.life.post({ type: "data", id: this.id, buf }, [buf]);
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.#flush();
    this.#end();
    if (this.#incoming.length === 0) this.push(null);
    else this.#endAfterIncoming = true;
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.#end();
    cb(err);
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.life.sockets.get(this.id) === this) {
      this.life.sockets.delete(this.id);
      if (!this.life.dead) this.life.post({ type: "end", id: this.id });
    }
  }
}

/** The embedded database in a worker thread, and the pool settings that connect node-postgres to it. */
export class PGliteWorker {
  #life: Life;
  #nextId = 1;
  #closed = false;

  private constructor(
    private readonly home: string,
    private readonly openOptions: OpenPGliteOptions,
    life: Life,
  ) {
    this.#life = life;
    this.#watch(life);
  }

  #restart(): void {
    this.#life = new Life(this.home, this.openOptions);
    this.#watch(this.#life);
  }

  /** After a crash a data directory starts opening again at once, so the next connection waits the least. */
  #watch(life: Life): void {
    life.onCrash = () => {
      if (!this.#closed && this.home !== "memory://" && this.#life === life) this.#restart();
    };
  }

  /** Opens the database for `home` (a data directory, or `memory://`) in a new worker. */
  static async open(home: string, open: OpenPGliteOptions = {}): Promise<PGliteWorker> {
    const life = new Life(home, open);
    try {
      await life.ready;
    } catch (err) {
      await life.worker.terminate().catch(() => {});
      throw err;
    }
    return new PGliteWorker(home, open, life);
  }

  /** The worker thread now serving (tests end it to see a crash handled). */
  get worker(): Worker {
    return this.#life.worker;
  }

  /** A new connection's stream; after a crash, a data directory is opened again by a new worker. */
  connect(): Duplex {
    if (this.#life.dead && !this.#closed && this.home !== "memory://") this.#restart();
    return new WorkerSocket(this.#life, this.#nextId++);
  }

  /** node-postgres settings for a pool of this database's one connection. */
  poolConfig(): pg.PoolConfig {
    return {
      max: 1,
      user: "postgres",
      database: "postgres",
      password: "",
      host: "localhost",
      stream: () => this.connect(),
    } as pg.PoolConfig;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#life.close();
  }
}

/** The embedded database as the connection uses it: node-postgres settings, and close. */
export interface EmbeddedDatabase {
  poolConfig(): pg.PoolConfig;
  close(): Promise<void>;
}

/** Where PGlite runs: TOOLGRAPH_PGLITE_THREAD = worker (default) or main; anything else is refused. */
export function embeddedThread(env: NodeJS.ProcessEnv = process.env): "worker" | "main" {
  const v = env.TOOLGRAPH_PGLITE_THREAD?.trim() || "worker";
  if (v === "worker" || v === "main") return v;
  throw new ToolgraphError(
    "invalid-input",
    `TOOLGRAPH_PGLITE_THREAD must be "worker" or "main", got ${JSON.stringify(env.TOOLGRAPH_PGLITE_THREAD)}`,
    { field: "TOOLGRAPH_PGLITE_THREAD" },
  );
}

/** Opens the embedded database for `home` on the thread TOOLGRAPH_PGLITE_THREAD names. */
export async function openEmbedded(
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  open: OpenPGliteOptions = {},
): Promise<EmbeddedDatabase> {
  if (embeddedThread(env) === "worker") return PGliteWorker.open(home, open);
  // Loaded only here: with the worker, PGlite's code is loaded by the worker alone.
  const [{ openPGlite }, { createPgConfig }] = await Promise.all([
    import("./pglite-template.ts"),
    import("@electric-sql/pglite/node-postgres"),
  ]);
  const pglite = await openPGlite(home, env, open);
  return {
    poolConfig: () => createPgConfig(pglite) as unknown as pg.PoolConfig,
    close: () => pglite.close(),
  };
}
