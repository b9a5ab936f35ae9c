/**
 * The analytics worker thread: receives { id, job, now, options } (the job packed: analytics-message.ts), runs
 * computeAnalyticsFrom (the same code as on the main thread), and posts { id, analytics } (its arrays transferred)
 * or { id, error }. Started by analytics-worker-client.ts.
 */
import { parentPort } from "node:worker_threads";
import { type AnalyticsOptions, computeAnalyticsFrom } from "./analytics.ts";
import { analyticsBuffers, type PackedJob, unpackJob } from "./analytics-message.ts";

interface Request {
  id: number;
  job: PackedJob;
  now: number;
  options: AnalyticsOptions;
}

parentPort?.on("message", (m: Request) => {
  try {
    const analytics = computeAnalyticsFrom(unpackJob(m.job), m.now, m.options);
    parentPort!.postMessage({ id: m.id, analytics }, analyticsBuffers(analytics));
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});
