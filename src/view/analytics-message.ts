/**
 * What crosses the thread boundary to the analytics worker and back, as typed arrays: a structured clone of an
 * array of arrays (the tool–capability memberships) or of objects (capability dependencies) visits every element
 * on the event loop's thread (10,000 tools in 1,000 capabilities of 20: 2–85 ms a job), while a typed array is
 * one copy, or none when transferred. The worker unpacks the job into the plain AnalyticsJob; the answer's
 * arrays are transferred back (docs/decisions/gateway-first-answer.md).
 */
import type { Analytics, AnalyticsJob } from "./analytics.ts";

/** An AnalyticsJob with its memberships and capability dependencies flattened into typed arrays. */
export interface PackedJob {
  version: number;
  patchCount: number;
  csr: AnalyticsJob["csr"];
  nTools: number;
  /** Capability c's tools are members[memberOffsets[c] .. memberOffsets[c + 1]). */
  memberOffsets: Uint32Array;
  members: Uint32Array;
  /** Dependency k: depFrom[k] → depTo[k] with depWeight[k]. */
  depFrom: Uint32Array;
  depTo: Uint32Array;
  depWeight: Float64Array;
  /** Whether the job's input had a tool graph (the same CSR as `csr`). */
  toolGraph: boolean;
}

export function packJob(job: AnalyticsJob): { packed: PackedJob; transfer: ArrayBuffer[] } {
  const ms = job.input.memberships;
  const memberOffsets = new Uint32Array(ms.length + 1);
  for (let c = 0; c < ms.length; c++) memberOffsets[c + 1] = memberOffsets[c]! + ms[c]!.length;
  const members = new Uint32Array(memberOffsets[ms.length]!);
  for (let c = 0; c < ms.length; c++) members.set(ms[c]!, memberOffsets[c]!);
  const deps = job.input.capabilityDeps ?? [];
  const depFrom = new Uint32Array(deps.length);
  const depTo = new Uint32Array(deps.length);
  const depWeight = new Float64Array(deps.length);
  for (let k = 0; k < deps.length; k++) {
    depFrom[k] = deps[k]!.from;
    depTo[k] = deps[k]!.to;
    depWeight[k] = deps[k]!.weight;
  }
  if (job.input.toolGraph !== undefined && job.input.toolGraph !== job.csr)
    throw new Error("analytics job: the input's tool graph must be the job's CSR");
  const packed: PackedJob = {
    version: job.version,
    patchCount: job.patchCount,
    csr: job.csr,
    nTools: job.input.nTools,
    memberOffsets,
    members,
    depFrom,
    depTo,
    depWeight,
    toolGraph: job.input.toolGraph !== undefined,
  };
  // The new arrays move to the worker; the CSR stays the snapshot's (copied once).
  return { packed, transfer: [memberOffsets, members, depFrom, depTo, depWeight].map((a) => a.buffer as ArrayBuffer) };
}

export function unpackJob(p: PackedJob): AnalyticsJob {
  const memberships: number[][] = [];
  for (let c = 0; c + 1 < p.memberOffsets.length; c++)
    memberships.push(Array.from(p.members.subarray(p.memberOffsets[c]!, p.memberOffsets[c + 1]!)));
  const capabilityDeps = Array.from(p.depFrom, (from, k) => ({ from, to: p.depTo[k]!, weight: p.depWeight[k]! }));
  return {
    version: p.version,
    patchCount: p.patchCount,
    csr: p.csr,
    input: { nTools: p.nTools, memberships, capabilityDeps, ...(p.toolGraph ? { toolGraph: p.csr } : {}) },
  };
}

/** The buffers of an answer's arrays, to transfer (the worker keeps no reference to them). */
export function analyticsBuffers(a: Analytics): ArrayBuffer[] {
  const arrays = [
    a.pagerankRaw,
    a.pagerank,
    a.community,
    a.toolCluster,
    a.capabilityCluster,
    a.hyperTools,
    a.hyperCapabilities,
  ];
  return [...new Set(arrays.map((x) => x.buffer as ArrayBuffer))];
}
