/**
 * ResourceSignalExtractor (docs/decisions/gate-thresholds.md); usages are fractions in [0, 1]:
 *
 *   resource_critical  memory > 0.95 OR cpu > 0.95                      up       High
 *   low_resources      memory > 0.85 OR cpu > 0.90 (when not critical)  up       Medium
 *   resource_healthy   memory < 0.60 AND cpu < 0.70                     down     Low
 *   disk_pressure      disk > 0.90                                      neutral  Low (warning)
 *
 * Bounds are strict (memory exactly 0.95 is low, not critical). The default rule table does
 * not read resource signals (adjustment-rules.ts RESOURCE_RULES says why); they feed the report's risk.
 */

import { assertInRange } from "./errors.ts";
import { stripUndefined } from "./options.ts";
import type { ResourceUsage, SignalReport } from "./types.ts";

const MODULE = "thresholds/resource-signals";

export type ResourceSignal = "resource_critical" | "low_resources" | "resource_healthy" | "disk_pressure";

export interface ResourceSignalOptions {
  /** Default 0.95. */
  readonly criticalMemory?: number;
  /** Default 0.95. */
  readonly criticalCpu?: number;
  /** Default 0.85. */
  readonly lowMemory?: number;
  /** Default 0.90. */
  readonly lowCpu?: number;
  /** Healthy when memory is strictly below this. Default 0.60. */
  readonly healthyMemory?: number;
  /** Healthy when cpu is strictly below this. Default 0.70. */
  readonly healthyCpu?: number;
  /** Default 0.90. */
  readonly diskPressure?: number;
}

export const DEFAULTS = {
  criticalMemory: 0.95,
  criticalCpu: 0.95,
  lowMemory: 0.85,
  lowCpu: 0.9,
  healthyMemory: 0.6,
  healthyCpu: 0.7,
  diskPressure: 0.9,
} as const;

const pct = (x: number): string => `${Math.round(x * 100)}%`;

export function extractResourceSignals(
  usage: ResourceUsage,
  options?: ResourceSignalOptions,
): SignalReport<ResourceSignal> {
  assertInRange(MODULE, "memory usage", usage.memory, 0, 1);
  assertInRange(MODULE, "cpu usage", usage.cpu, 0, 1);
  if (usage.disk !== undefined) assertInRange(MODULE, "disk usage", usage.disk, 0, 1);
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const signals: ResourceSignal[] = [];
  if (usage.memory > o.criticalMemory || usage.cpu > o.criticalCpu) signals.push("resource_critical");
  else if (usage.memory > o.lowMemory || usage.cpu > o.lowCpu) signals.push("low_resources");
  else if (usage.memory < o.healthyMemory && usage.cpu < o.healthyCpu) signals.push("resource_healthy");
  if (usage.disk !== undefined && usage.disk > o.diskPressure) signals.push("disk_pressure");
  const first = signals[0];
  const recommendation =
    first === "resource_critical" || first === "low_resources"
      ? "up"
      : first === "resource_healthy"
        ? "down"
        : "neutral";
  const disk = usage.disk === undefined ? "disk n/a" : `disk ${pct(usage.disk)}`;
  const reasoning =
    (signals.length === 0 ? "No resource signal" : signals.join(", ")) +
    ` (memory ${pct(usage.memory)}, cpu ${pct(usage.cpu)}, ${disk})`;
  return { signals, recommendation, reasoning };
}
