/**
 * The main thread's side of the analytics worker (analytics-worker.ts): one worker per AnalyticsCache,
 * started on first use, unref'd (it never keeps the process alive), jobs answered in order by id. From the
 * built package (dist/, this file is .js) the worker runs the compiled analytics-worker.js; from the sources
 * (tests, tsx) it registers tsx's ESM hooks inside the worker and imports analytics-worker.ts.
 */
import { Worker } from "node:worker_threads";
import type { Analytics, AnalyticsJob, AnalyticsOptions } from "./analytics.ts";
import { packJob } from "./analytics-message.ts";

interface Pending {
  resolve: (a: Analytics) => void;
  reject: (e: Error) => void;
}

export class AnalyticsWorker {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Why the worker can take no more jobs (it failed or exited): a job then fails at once, never waits. */
  private failed: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on("message", (m: { id: number; analytics?: Analytics; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.analytics) p.resolve(m.analytics);
      else p.reject(new Error(`analytics worker: ${m.error ?? "no result"}`));
    });
    const failAll = (err: Error) => {
      this.failed ??= err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on("error", failAll);
    worker.on("exit", (code) => failAll(new Error(`analytics worker exited with code ${code}`)));
  }

  /** A running worker, or null when one cannot be started here. */
  static start(): AnalyticsWorker | null {
    try {
      const compiled = import.meta.url.endsWith(".js");
      if (compiled)
        return new AnalyticsWorker(new Worker(new URL("./analytics-worker.js", import.meta.url), { execArgv: [] }));
      // A worker's entry file is resolved before any loader hook, so from the sources the entry is a small
      // script that registers tsx's ESM hooks in the worker and then imports the TypeScript module.
      const entry = new URL("./analytics-worker.ts", import.meta.url).href;
      const tsx = import.meta.resolve("tsx/esm/api");
      const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
      return new AnalyticsWorker(new Worker(boot, { eval: true, execArgv: [] }));
    } catch {
      return null;
    }
  }

  compute(job: AnalyticsJob, now: number, options: AnalyticsOptions): Promise<Analytics> {
    const id = this.nextId++;
    if (this.failed) return Promise.reject(this.failed);
    return new Promise<Analytics>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Typed arrays, not arrays of arrays: cloned or transferred without visiting every element.
      const { packed, transfer } = packJob(job);
      this.worker.postMessage({ id, job: packed, now, options }, transfer);
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}
