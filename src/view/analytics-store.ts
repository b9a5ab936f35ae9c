/**
 * Analytics kept for a later process (the embedded data directory's cache, store/data-dir-cache.ts): a
 * one-shot CLI call would otherwise compute PageRank, Louvain, the spectral clusters and the hypergraph
 * PageRank of the same graph on every start (40-500 ms of the event loop on the 41-tool demo, depending on
 * when V8 optimises the eigen-solver). Why: docs/decisions/everyday-budget.md.
 *
 * The key is the content the analytics are computed from (the snapshot's CSR and tool-capability input,
 * v8-serialised and hashed), the options, the package version and a layout tag: not the graph version, so a
 * data directory restored from an older copy can never be answered with another graph's analytics. The value
 * is the Analytics v8-serialised (typed arrays kept bit for bit); a read takes the reading snapshot's version
 * and the clock's now as `computedAt` (what computing them now would give: they depend on nothing else).
 */
import { createHash } from "node:crypto";
import { deserialize, serialize } from "node:v8";
import { VERSION } from "../version.ts";
import type { Analytics, AnalyticsJob } from "./analytics.ts";

/** Bytes under a key, kept beyond this process (read returns undefined on a miss; write never throws). */
export interface AnalyticsStore {
  read(key: string): Uint8Array | undefined;
  write(key: string, bytes: Uint8Array): void;
}

/** The key of the analytics of `job` with these options, defaults applied (see the header). */
export function analyticsKey(job: AnalyticsJob, seed: number, factor: number): string {
  const h = createHash("sha256");
  h.update(serialize({ csr: job.csr, input: job.input }));
  return `analytics-1\u0000${VERSION}\u0000${seed}\u0000${factor}\u0000${h.digest("hex")}`;
}

/** The stored analytics of `job`, made current (its version, `now`), or undefined (none, unreadable, another shape). */
export function readAnalytics(
  store: AnalyticsStore,
  key: string,
  job: AnalyticsJob,
  now: number,
): Analytics | undefined {
  const bytes = store.read(key);
  if (!bytes) return undefined;
  let a: Analytics;
  try {
    a = deserialize(bytes) as Analytics;
  } catch {
    return undefined;
  }
  if (!(a?.pagerank instanceof Float64Array) || !(a.hyperCapabilities instanceof Float64Array)) return undefined;
  if (a.pagerank.length !== job.csr.n || a.hyperCapabilities.length !== job.input.memberships.length) return undefined;
  return { ...a, version: job.version, patchCount: job.patchCount, computedAt: now };
}

export function writeAnalytics(store: AnalyticsStore, key: string, analytics: Analytics): void {
  store.write(key, serialize(analytics));
}
