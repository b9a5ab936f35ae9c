/**
 * Resource readings for the resource signal (algorithms/thresholds/resource-signals.ts), sampled from the
 * real process and system at most once per `sampleIntervalMs` so that the
 * synchronous gate reads a cached snapshot:
 *
 *   memory  1 − os.freemem() / os.totalmem(); when the process runs under a memory limit
 *           (process.constrainedMemory(), cgroups) the larger of that and rss / limit
 *   cpu     os.loadavg()[0] / os.availableParallelism(), clamped to [0, 1] (0 on Windows, which has no loadavg)
 *   disk    1 − bavail / blocks of fs.statfsSync(diskPath); undefined when it cannot be read
 *
 * plus process.memoryUsage() (rss, heap) for the report. The clock is injected (`now`).
 */

import { statfsSync } from "node:fs";
import os from "node:os";
import { ThresholdError } from "../../algorithms/thresholds/errors.ts";
import type { ResourceUsage } from "../../algorithms/thresholds/types.ts";

const MODULE = "gate/resource-monitor";

export interface ResourceSnapshot extends ResourceUsage {
  /** Clock value (ms) when sampled. */
  readonly sampledAt: number;
  readonly loadAverage1m: number;
  readonly cpuCount: number;
  readonly processRssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
}

export interface ResourceMonitorOptions {
  /** Clock in ms. Default Date.now. */
  readonly now?: () => number;
  /** Minimum time between two readings. Default 1000 ms. */
  readonly sampleIntervalMs?: number;
  /** Path whose file system is measured. Default process.cwd(). */
  readonly diskPath?: string;
}

export const DEFAULTS = { sampleIntervalMs: 1000 } as const;

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** One reading of the system and process, stamped `at`. */
export function readResources(diskPath: string, at: number): ResourceSnapshot {
  const total = os.totalmem();
  const mem = process.memoryUsage();
  let memory = total > 0 ? 1 - os.freemem() / total : 0;
  const limit = typeof process.constrainedMemory === "function" ? process.constrainedMemory() : 0;
  if (limit !== undefined && limit > 0 && limit < total) memory = Math.max(memory, mem.rss / limit);
  const cpuCount = Math.max(1, os.availableParallelism());
  const load = os.loadavg()[0] ?? 0;
  let disk: number | undefined;
  try {
    const s = statfsSync(diskPath);
    disk = s.blocks > 0 ? clamp01(1 - s.bavail / s.blocks) : undefined;
  } catch {
    disk = undefined;
  }
  return {
    memory: clamp01(memory),
    cpu: clamp01(load / cpuCount),
    disk,
    sampledAt: at,
    loadAverage1m: load,
    cpuCount,
    processRssBytes: mem.rss,
    heapUsedBytes: mem.heapUsed,
    heapTotalBytes: mem.heapTotal,
  };
}

export class ResourceMonitor {
  readonly #now: () => number;
  readonly #interval: number;
  readonly #diskPath: string;
  #last: ResourceSnapshot | undefined;
  #samples = 0;

  constructor(options?: ResourceMonitorOptions) {
    this.#now = options?.now ?? Date.now;
    this.#interval = options?.sampleIntervalMs ?? DEFAULTS.sampleIntervalMs;
    if (!Number.isFinite(this.#interval) || this.#interval < 0) {
      throw new ThresholdError(
        MODULE,
        "bad-interval",
        `sampleIntervalMs must be a non-negative number, got ${this.#interval}`,
      );
    }
    this.#diskPath = options?.diskPath ?? process.cwd();
  }

  /** The cached snapshot, re-read when older than sampleIntervalMs (or never read). */
  snapshot(): ResourceSnapshot {
    const t = this.#now();
    const last = this.#last;
    if (last !== undefined && t - last.sampledAt < this.#interval && t >= last.sampledAt) return last;
    return this.refresh();
  }

  /** Reads now, regardless of the interval. */
  refresh(): ResourceSnapshot {
    this.#last = readResources(this.#diskPath, this.#now());
    this.#samples++;
    return this.#last;
  }

  /** Number of real readings taken so far. */
  get samples(): number {
    return this.#samples;
  }
}
