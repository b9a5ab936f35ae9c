/**
 * The analytics worker thread: receives { id, job, now, options }, runs computeAnalyticsFrom (the same code
 * as on the main thread), and posts { id, analytics } or { id, error }. Started by analytics-worker-client.ts.
 */
import { parentPort } from "node:worker_threads";
import { type AnalyticsJob, type AnalyticsOptions, computeAnalyticsFrom } from "./analytics.ts";

interface Request {
  id: number;
  job: AnalyticsJob;
  now: number;
  options: AnalyticsOptions;
}

parentPort?.on("message", (m: Request) => {
  try {
    parentPort!.postMessage({ id: m.id, analytics: computeAnalyticsFrom(m.job, m.now, m.options) });
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});
