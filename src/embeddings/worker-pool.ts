/**
 * An EmbeddingProvider that runs a local model (USE-lite) in worker threads, so that embedding never blocks
 * the event loop: the main thread only splits texts into batches, posts them and copies vectors back.
 *
 * Same vectors as in process: a call's texts are cut into batches of `batchSize` non-blank texts (blank texts
 * ride along and embed to zero vectors in the worker), exactly the groups the in-process provider passes to
 * its model — for USE-lite the length-sorted groups of `useLiteBatches`, otherwise runs in input order — and
 * each batch is embedded by the same provider code (createEmbeddingProvider(spec)) in the worker. USE-lite's output depends on the other texts of its batch (last-bit differences, ~2e-7), so batches
 * of different calls are never merged: calls queue, batch by batch, first in first out, except that a call
 * of one batch (a query) goes ahead of the batches of bulk calls, so a search waits for at most the batches
 * already in workers, not for a whole import.
 *
 * Workers start on demand (up to `workers`), are referenced only while they hold a batch (an idle pool never
 * keeps the process alive) and stop on `close()`. A worker that dies (crash, out of memory, terminated) is
 * replaced by a new one and its batch is retried once; a batch that kills two workers fails its call with
 * EmbeddingError("worker"). An error thrown by the provider in the worker is rethrown here as the same error
 * (an EmbeddingError keeps its code and message); a worker that cannot be started at all fails the calls
 * waiting for one with EmbeddingError("worker"). From the built package (dist/, this file is .js) a worker
 * runs the compiled embedding-worker.js; from the sources (tests, tsx) it registers tsx's ESM hooks first.
 * Defaults and measurements: docs/decisions/embedding-worker-pool.md.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { type EmbeddingCallStore, embedThroughStore } from "./call-store.ts";
import { createEmbeddingProvider, type EmbeddingSpec, parseEmbeddingSpec } from "./create.ts";
import type { WorkerError } from "./embedding-worker.ts";
import { DEFAULTS as OPENAI_DEFAULTS } from "./openai-compatible.ts";
import { EmbeddingError, type EmbeddingProvider, type EmbedOptions, isBlank, positiveInt } from "./provider.ts";
import { DEFAULTS as USE_LITE_DEFAULTS, useLiteBatches } from "./use-lite.ts";

export interface EmbeddingWorkerPoolOptions {
  /** Worker threads at most. Default: DEFAULTS.workers() (1 on a 2-core machine, cores − 1 up to 4). */
  readonly workers?: number;
  /** Answers of earlier processes, call by call (call-store.ts). Default none: every call goes to the workers. */
  readonly store?: EmbeddingCallStore | undefined;
}

export const DEFAULTS = {
  /** One core stays with the event loop (and the database); measured in docs/decisions/embedding-worker-pool.md. */
  workers: (): number => Math.max(1, Math.min(4, availableParallelism() - 1)),
  /** Texts per batch of the hash provider (it has no batching of its own, so any size gives the same vectors). */
  hashBatchSize: 256,
} as const;

/** Texts per model call of a spec: the in-process provider's own batch size. */
function batchSizeOf(spec: EmbeddingSpec): number {
  switch (spec.kind) {
    case "use-lite":
      return spec.batchSize ?? USE_LITE_DEFAULTS.batchSize;
    case "openai":
      return spec.batchSize ?? OPENAI_DEFAULTS.batchSize;
    case "hash":
      return DEFAULTS.hashBatchSize;
  }
}

/**
 * The batches of a call, as indices into its texts: the in-process provider's model calls, each blank text
 * riding along with the last batch (the worker's provider embeds it to the zero vector without the model).
 */
export function batchPlan(spec: EmbeddingSpec, texts: readonly string[], batchSize: number): number[][] {
  if (spec.kind === "use-lite") {
    const plan = useLiteBatches(texts, batchSize);
    const blanks: number[] = [];
    texts.forEach((t, i) => {
      if (isBlank(t)) blanks.push(i);
    });
    if (blanks.length === 0) return plan;
    if (plan.length === 0) return [blanks];
    plan[plan.length - 1]!.push(...blanks);
    return plan;
  }
  // Runs in input order of `batchSize` non-blank texts each, the blank texts among them riding along.
  const plan: number[][] = [];
  let run: number[] = [];
  let nonBlank = 0;
  texts.forEach((t, i) => {
    run.push(i);
    if (!isBlank(t)) nonBlank++;
    if (nonBlank === batchSize) {
      plan.push(run);
      run = [];
      nonBlank = 0;
    }
  });
  if (run.length > 0) plan.push(run);
  return plan;
}

/** One call of `embed`: its output and how many of its batches are still out. */
interface Call {
  readonly out: Float32Array[];
  left: number;
  done: number;
  readonly total: number;
  readonly opts: EmbedOptions;
  readonly resolve: (v: Float32Array[]) => void;
  readonly reject: (e: Error) => void;
  settled: boolean;
  /** Removes the call's abort listener. */
  release: () => void;
}

interface Batch {
  readonly call: Call;
  /** Positions of the batch's texts in its call. */
  readonly indices: number[];
  readonly texts: string[];
  attempts: number;
  /** The whole of its call: queued ahead of bulk calls' batches. */
  readonly single: boolean;
}

interface Slot {
  readonly worker: Worker;
  readonly threadId: number;
  batch?: Batch | undefined;
  lastError?: Error | undefined;
}

interface Reply {
  id: number;
  vectors?: Float32Array;
  dims?: number;
  error?: WorkerError;
}

/** The error a worker reported, rebuilt on this thread: an EmbeddingError keeps its code and message. */
export function errorFromWorker(e: WorkerError): Error {
  const err = e.code !== undefined ? new EmbeddingError(e.code as EmbeddingError["code"], "") : new Error("");
  err.message = e.message;
  if (e.code === undefined) err.name = e.name;
  if (e.stack !== undefined)
    err.stack = `${err.name}: ${e.message}\n    (in the embedding worker)\n${e.stack.split("\n").slice(1).join("\n")}`;
  return err;
}

export class EmbeddingWorkerPool implements EmbeddingProvider {
  readonly model: string;
  readonly spec: EmbeddingSpec;
  readonly batchSize: number;
  readonly maxWorkers: number;
  readonly #where: string;
  #dimensions: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Batch[] = [];
  readonly #inFlight = new Map<number, Slot>();
  #nextId = 1;
  #closed = false;
  #started = 0;
  #crashes = 0;
  readonly #store: EmbeddingCallStore | undefined;

  constructor(spec: string | EmbeddingSpec, options: EmbeddingWorkerPoolOptions = {}) {
    // The in-process provider of the spec validates it and names the model; it never embeds here.
    const local = createEmbeddingProvider(spec);
    this.spec = typeof spec === "string" ? parseEmbeddingSpec(spec) : spec;
    this.model = local.model;
    this.#dimensions = local.dimensions;
    this.#where = `embedding pool (${this.spec.kind})`;
    this.maxWorkers = positiveInt(options.workers ?? DEFAULTS.workers(), "workers", this.#where);
    this.batchSize = batchSizeOf(this.spec);
    this.#store = options.store;
  }

  get dimensions(): number {
    return this.#dimensions;
  }

  /** Workers started since creation (restarts included), worker deaths, and the state now. */
  stats(): { started: number; crashes: number; running: number; busy: number; queued: number } {
    return {
      started: this.#started,
      crashes: this.#crashes,
      running: this.#slots.length,
      busy: this.#inFlight.size,
      queued: this.#queue.length,
    };
  }

  /** The running worker threads (a test ends one to check that the pool replaces it). */
  threads(): readonly Worker[] {
    return this.#slots.map((s) => s.worker);
  }

  embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    if (!this.#store || this.#closed) return this.#embed(texts, opts);
    const call = { model: this.model, dimensions: this.#dimensions, batchSize: this.batchSize, where: this.#where };
    return embedThroughStore(this.#store, call, texts, opts, () => this.#embed(texts, opts));
  }

  #embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
    if (this.#closed) return Promise.reject(new EmbeddingError("aborted", `${this.#where}: closed`));
    if (opts.signal?.aborted)
      return Promise.reject(new EmbeddingError("aborted", `${this.#where} aborted`, { cause: opts.signal.reason }));
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise<Float32Array[]>((resolve, reject) => {
      const call: Call = {
        out: new Array(texts.length),
        left: 0,
        done: 0,
        total: texts.length,
        opts,
        resolve,
        reject,
        settled: false,
        release: () => {},
      };
      const batches: Batch[] = batchPlan(this.spec, texts, this.batchSize).map((indices) => ({
        call,
        indices,
        texts: indices.map((i) => texts[i]!),
        attempts: 0,
        single: false,
      }));
      call.left = batches.length;
      if (batches.length === 1) {
        // A one-batch call (a query) goes ahead of the batches of bulk calls (an import), after earlier ones.
        const only = { ...batches[0]!, single: true };
        const at = this.#queue.findIndex((b) => !b.single);
        this.#queue.splice(at < 0 ? this.#queue.length : at, 0, only);
      } else for (const b of batches) this.#queue.push(b);
      const signal = opts.signal;
      if (signal !== undefined) {
        const onAbort = () =>
          this.#fail(call, new EmbeddingError("aborted", `${this.#where} aborted`, { cause: signal.reason }));
        signal.addEventListener("abort", onAbort, { once: true });
        call.release = () => signal.removeEventListener("abort", onAbort);
      }
      this.#pump();
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const err = new EmbeddingError("aborted", `${this.#where}: closed`);
    for (const b of this.#queue.splice(0)) this.#fail(b.call, err);
    for (const s of this.#inFlight.values()) if (s.batch) this.#fail(s.batch.call, err);
    const slots = this.#slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate().catch(() => undefined)));
  }

  /** Hands queued batches to idle workers, starting workers up to the maximum. */
  #pump(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      let slot = this.#slots.find((s) => s.batch === undefined);
      if (slot === undefined) {
        if (this.#slots.length >= this.maxWorkers) return;
        try {
          slot = this.#start();
        } catch (err) {
          const e = new EmbeddingError("worker", `${this.#where}: could not start a worker: ${String(err)}`, {
            cause: err,
          });
          for (const b of this.#queue.splice(0)) this.#fail(b.call, e);
          return;
        }
      }
      const batch = this.#queue.shift()!;
      if (batch.call.settled) continue;
      const id = this.#nextId++;
      slot.batch = batch;
      batch.attempts++;
      this.#inFlight.set(id, slot);
      slot.worker.ref();
      slot.worker.postMessage({ id, texts: batch.texts });
    }
  }

  #start(): Slot {
    const worker = spawnEmbeddingWorker(this.spec);
    worker.unref();
    const slot: Slot = { worker, threadId: worker.threadId };
    this.#started++;
    worker.on("message", (m: Reply) => this.#onReply(slot, m));
    worker.on("error", (err) => {
      slot.lastError = err;
    });
    worker.on("exit", (code) => this.#onExit(slot, code));
    this.#slots.push(slot);
    return slot;
  }

  #onReply(slot: Slot, m: Reply): void {
    if (this.#inFlight.get(m.id) !== slot) return;
    this.#inFlight.delete(m.id);
    const batch = slot.batch!;
    slot.batch = undefined;
    slot.worker.unref();
    const call = batch.call;
    if (m.error !== undefined) this.#fail(call, errorFromWorker(m.error));
    else if (!call.settled) {
      const dims = m.dims ?? 0;
      if (this.#dimensions === 0) this.#dimensions = dims;
      for (let k = 0; k < batch.indices.length; k++)
        call.out[batch.indices[k]!] = m.vectors!.slice(k * dims, (k + 1) * dims);
      call.done += batch.texts.length;
      call.left--;
      call.opts.onProgress?.(call.done, call.total);
      if (call.left === 0) {
        call.settled = true;
        call.release();
        call.resolve(call.out);
      }
    }
    this.#pump();
  }

  /** A worker ended: unless the pool is closing, it died; its batch is retried once on a new worker. */
  #onExit(slot: Slot, code: number): void {
    const at = this.#slots.indexOf(slot);
    if (at >= 0) this.#slots.splice(at, 1);
    for (const [id, s] of this.#inFlight) if (s === slot) this.#inFlight.delete(id);
    if (this.#closed) return;
    this.#crashes++;
    const batch = slot.batch;
    slot.batch = undefined;
    if (batch !== undefined && !batch.call.settled) {
      if (batch.attempts >= 2) {
        const why = slot.lastError ? `: ${slot.lastError.message}` : "";
        this.#fail(
          batch.call,
          new EmbeddingError("worker", `${this.#where}: a worker died twice on one batch (exit code ${code})${why}`, {
            cause: slot.lastError,
          }),
        );
      } else this.#queue.unshift(batch);
    }
    this.#pump();
  }

  #fail(call: Call, err: Error): void {
    if (call.settled) return;
    call.settled = true;
    call.release();
    call.reject(err);
    // Its batches still queued are dropped; those in flight finish and are ignored.
    for (let i = this.#queue.length - 1; i >= 0; i--) if (this.#queue[i]!.call === call) this.#queue.splice(i, 1);
  }
}

/** Starts one embedding worker for a spec, from the compiled package or from the TypeScript sources. */
function spawnEmbeddingWorker(spec: EmbeddingSpec): Worker {
  const options = { workerData: { spec }, execArgv: [] as string[] };
  if (import.meta.url.endsWith(".js")) return new Worker(new URL("./embedding-worker.js", import.meta.url), options);
  // A worker's entry file is resolved before any loader hook, so from the sources the entry is a small
  // script that registers tsx's ESM hooks in the worker and then imports the TypeScript module.
  const entry = new URL("./embedding-worker.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
