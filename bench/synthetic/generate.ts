/**
 * Seeded generator of realistic synthetic toolgraph projects (1k / 10k / 50k tools) in the import
 * formats of `bench/convert/common.ts` (catalog, traces, declared edges).
 *
 * Model (every draw from mulberry32(seed), so one seed gives one project):
 * - Servers of `toolsPerServer` tools, each bound to a domain; a tool is a distinct
 *   (domain, verb, object) triple + a qualifier, so names and descriptions are distinct and searchable.
 * - Capabilities: round(tools / toolsPerCapability), each 3–8 tools drawn from one server (topped up
 *   from the next server when short), with an internal workflow: step j > 0 depends on step j-1
 *   (probability 0.6) or on a random earlier step, plus a second earlier step with probability 0.2
 *   (fan-in). A share `capabilityDependsOnShare` depends on an earlier capability (acyclic).
 * - Usage is Zipf: capability popularity ∝ 1 / rank^s over a random permutation (s = `zipfExponent`),
 *   users likewise; noise tools are drawn Zipf over all tools.
 * - A trace runs one capability workflow: with probability 0.5 (when it has one) a prerequisite
 *   capability's workflow first (its first step then feeds the main block); each non-first tool is
 *   skipped with probability 0.1 (dependencies fall back to the previous kept step); with probability
 *   `nestedShare` a block is nested (its first step is the `parent` of the block's other steps); with
 *   probability `noise` one unrelated tool is inserted at a random position; with probability
 *   `failureRate` the trace fails at a random step (later steps are not run).
 * - Times: trace i starts at 2024-01-01T00:00:00Z + 30 s · i + U(0, 30 s); each tool has a base latency
 *   in [20, 2000) ms (log-uniform) and a step lasts base × U(0.5, 1.5).
 * - Declared edges: each distinct intra-capability dependency is declared (`dependency`, source
 *   `declared`) with probability `declaredEdgeShare`.
 */

import type { Rng } from "../../algorithms/random/rng.ts";
import { mulberry32, shuffled } from "../../algorithms/random/rng.ts";
import type {
  Catalog,
  CatalogCapability,
  CatalogTool,
  DeclaredEdge,
  InputSchema,
  TraceRecord,
  TraceStep,
} from "../convert/common.ts";
import {
  DESCRIPTION_TEMPLATES,
  DOMAINS,
  INTENT_TEMPLATES,
  OBJECTS,
  PARAM_VOCAB,
  QUALIFIERS,
  SERVER_SUFFIXES,
  thirdPerson,
  VERBS,
} from "./vocabulary.ts";

export const SYNTHETIC_SIZES = [1_000, 10_000, 50_000] as const;

export interface SyntheticOptions {
  /** Number of tools (≥ 8, ≤ 144,000). Required. */
  tools: number;
  /** Number of traces. Default 2 × tools. */
  traces?: number;
  /** Seed. Default 1. */
  seed?: number;
  /** Zipf exponent of capability, user and noise-tool popularity. Default 1.07. */
  zipfExponent?: number;
  /** Tools per server. Default 25. */
  toolsPerServer?: number;
  /** Tools per capability (sets the capability count tools / this). Default 5. */
  toolsPerCapability?: number;
  /** Share of capabilities that depend on an earlier capability. Default 0.2. */
  capabilityDependsOnShare?: number;
  /** Probability that a trace gets one unrelated tool inserted. Default 0.15. */
  noise?: number;
  /** Probability that a trace fails. Default 0.05. */
  failureRate?: number;
  /** Probability that a workflow block is nested under its first step. Default 0.3. */
  nestedShare?: number;
  /** Share of intra-capability dependencies also given as declared edges. Default 0.3. */
  declaredEdgeShare?: number;
  /** Number of distinct users. Default 50. */
  users?: number;
}

export const DEFAULTS = {
  seed: 1,
  tracesPerTool: 2,
  zipfExponent: 1.07,
  toolsPerServer: 25,
  toolsPerCapability: 5,
  capabilityDependsOnShare: 0.2,
  noise: 0.15,
  failureRate: 0.05,
  nestedShare: 0.3,
  declaredEdgeShare: 0.3,
  users: 50,
  skipShare: 0.1,
  prerequisiteShare: 0.5,
} as const;

export const SYNTHETIC_EPOCH_MS = Date.UTC(2024, 0, 1);

export class SyntheticError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(`synthetic: ${message}`);
    this.code = code;
    this.name = "SyntheticError";
  }
}

/** A capability's internal workflow: tool ids in order and, per step, the earlier steps it needs. */
export interface CapabilityWorkflow {
  capability: string;
  tools: string[];
  dependsOn: number[][];
}

export interface SyntheticProject {
  catalog: Catalog;
  traces: TraceRecord[];
  edges: DeclaredEdge[];
  /** The generator's ground truth (not an import format): each capability's workflow. */
  workflows: CapabilityWorkflow[];
  meta: { seed: number; tools: number; servers: number; capabilities: number; traces: number; steps: number };
}

/** Sampler of indices 0..n-1 with P(i) ∝ 1 / (rank(i) + 1)^s over a random rank permutation. */
export function zipfSampler(n: number, s: number, rng: Rng): () => number {
  const order = shuffled(
    Array.from({ length: n }, (_, i) => i),
    rng,
  );
  const cum = new Float64Array(n);
  let total = 0;
  for (let r = 0; r < n; r++) {
    total += 1 / (r + 1) ** s;
    cum[r] = total;
  }
  return () => {
    const x = rng() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cum[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return order[lo]!;
  };
}

const pick = <T>(xs: readonly T[], rng: Rng): T => xs[Math.floor(rng() * xs.length)]!;
const snake = (s: string) => s.replace(/\s+/g, "_");

interface ToolDraft {
  tool: CatalogTool;
  verb: string;
  object: string;
  domain: string;
  latencyMs: number;
}

function makeSchema(object: string, rng: Rng): InputSchema {
  const idName = `${snake(object)}_id`;
  const properties: InputSchema["properties"] = {
    [idName]: { type: "string", description: `Identifier of the ${object}` },
  };
  const extra = shuffled(PARAM_VOCAB, rng).slice(0, Math.floor(rng() * 4));
  for (const p of extra) properties[p.name] = { type: p.type, description: p.description };
  return { type: "object", properties, required: [idName] };
}

function validate(o: SyntheticOptions): void {
  if (!Number.isInteger(o.tools) || o.tools < 8 || o.tools > DOMAINS.length * VERBS.length * OBJECTS.length) {
    throw new SyntheticError(
      "bad-tools",
      `tools must be an integer in [8, ${DOMAINS.length * VERBS.length * OBJECTS.length}], got ${o.tools}`,
    );
  }
  if (o.traces !== undefined && (!Number.isInteger(o.traces) || o.traces < 0)) {
    throw new SyntheticError("bad-traces", `traces must be a non-negative integer, got ${o.traces}`);
  }
  for (const key of ["capabilityDependsOnShare", "noise", "failureRate", "nestedShare", "declaredEdgeShare"] as const) {
    const v = o[key];
    if (v !== undefined && !(v >= 0 && v <= 1))
      throw new SyntheticError("bad-share", `${key} must be in [0, 1], got ${v}`);
  }
}

/** Generates one synthetic project; same options (seed included) → deep-equal output. */
export function generateSyntheticProject(options: SyntheticOptions): SyntheticProject {
  validate(options);
  const seed = options.seed ?? DEFAULTS.seed;
  const nTools = options.tools;
  const nTraces = options.traces ?? DEFAULTS.tracesPerTool * nTools;
  const s = options.zipfExponent ?? DEFAULTS.zipfExponent;
  const perServer = Math.max(1, Math.floor(options.toolsPerServer ?? DEFAULTS.toolsPerServer));
  const perCap = options.toolsPerCapability ?? DEFAULTS.toolsPerCapability;
  const capDepShare = options.capabilityDependsOnShare ?? DEFAULTS.capabilityDependsOnShare;
  const noise = options.noise ?? DEFAULTS.noise;
  const failureRate = options.failureRate ?? DEFAULTS.failureRate;
  const nestedShare = options.nestedShare ?? DEFAULTS.nestedShare;
  const declaredShare = options.declaredEdgeShare ?? DEFAULTS.declaredEdgeShare;
  const nUsers = Math.max(1, Math.floor(options.users ?? DEFAULTS.users));
  const rng = mulberry32(seed);

  // --- servers and tools ------------------------------------------------------------------------
  const nServers = Math.ceil(nTools / perServer);
  const domainOrder = shuffled(DOMAINS, rng);
  const servers = Array.from({ length: nServers }, (_, i) => {
    const domain = domainOrder[i % domainOrder.length]!;
    const round = Math.floor(i / domainOrder.length);
    const suffix = SERVER_SUFFIXES[round % SERVER_SUFFIXES.length]!;
    const name =
      round < SERVER_SUFFIXES.length
        ? `${domain}-${suffix}`
        : `${domain}-${suffix}-${Math.floor(round / SERVER_SUFFIXES.length) + 1}`;
    return { name, domain, tools: [] as number[] };
  });
  const usedTriples = new Set<string>();
  const drafts: ToolDraft[] = [];
  for (let i = 0; i < nTools; i++) {
    const server = servers[Math.floor(i / perServer)]!;
    let verb: string;
    let object: string;
    let key: string;
    do {
      verb = pick(VERBS, rng);
      object = pick(OBJECTS, rng);
      key = `${server.domain}|${verb}|${object}`;
    } while (usedTriples.has(key));
    usedTriples.add(key);
    const qualifier = pick(QUALIFIERS, rng);
    const name = `${verb}_${snake(object)}`;
    const description = pick(DESCRIPTION_TEMPLATES, rng)(verb, object, server.domain, qualifier);
    const tool: CatalogTool = {
      id: `syn:${server.name}.${name}`,
      name,
      description,
      inputSchema: makeSchema(object, rng),
      tags: [server.domain, verb],
      server: server.name,
    };
    server.tools.push(i);
    drafts.push({ tool, verb, object, domain: server.domain, latencyMs: Math.round(20 * 100 ** rng()) });
  }

  // --- capabilities -----------------------------------------------------------------------------
  const nCaps = Math.max(1, Math.round(nTools / perCap));
  const capabilities: CatalogCapability[] = [];
  const workflows: CapabilityWorkflow[] = [];
  const capTools: number[][] = [];
  const capDeps: number[][][] = [];
  const capDependsOn: number[] = [];
  const capPhrase: string[] = [];
  for (let c = 0; c < nCaps; c++) {
    const size = 3 + Math.floor(rng() * 6);
    let sIdx = Math.floor(rng() * nServers);
    const pool: number[] = [];
    while (pool.length < size) {
      for (const t of shuffled(servers[sIdx]!.tools, rng)) if (pool.length < size && !pool.includes(t)) pool.push(t);
      sIdx = (sIdx + 1) % nServers;
    }
    const deps: number[][] = pool.map((_, j) => {
      if (j === 0) return [];
      const first = rng() < 0.6 ? j - 1 : Math.floor(rng() * j);
      const d = [first];
      if (j >= 2 && rng() < 0.2) {
        const second = Math.floor(rng() * j);
        if (second !== first) d.push(second);
      }
      return d.sort((a, b) => a - b);
    });
    const head = drafts[pool[0]!]!;
    const tail = drafts[pool[pool.length - 1]!]!;
    const id = `syn-cap:${c}`;
    const cap: CatalogCapability = {
      id,
      name: `${head.verb} ${head.object} then ${tail.verb} ${tail.object} (${head.domain})`,
      description: `Workflow that ${pool.map((t) => `${thirdPerson(drafts[t]!.verb)} ${drafts[t]!.object}`).join(", ")} in ${head.domain}.`,
      tools: pool.map((t) => drafts[t]!.tool.id),
    };
    const dependsOnCap = c > 0 && rng() < capDepShare ? Math.max(0, c - 1 - Math.floor(rng() * Math.min(c, 50))) : -1;
    if (dependsOnCap >= 0) cap.dependsOn = [`syn-cap:${dependsOnCap}`];
    capabilities.push(cap);
    capTools.push(pool);
    capDeps.push(deps);
    capDependsOn.push(dependsOnCap);
    capPhrase.push(`${head.verb} the ${head.object} and ${tail.verb} the ${tail.object}`);
    workflows.push({ capability: id, tools: cap.tools.slice(), dependsOn: deps.map((d) => d.slice()) });
  }

  // --- declared edges ---------------------------------------------------------------------------
  const edges: DeclaredEdge[] = [];
  const seenEdges = new Set<string>();
  capTools.forEach((pool, c) => {
    capDeps[c]!.forEach((d, j) => {
      for (const i of d) {
        const from = drafts[pool[i]!]!.tool.id;
        const to = drafts[pool[j]!]!.tool.id;
        const key = `${from}\u0000${to}`;
        if (seenEdges.has(key)) continue;
        seenEdges.add(key);
        if (rng() < declaredShare) edges.push({ from, to, type: "dependency", source: "declared" });
      }
    });
  });

  // --- traces -----------------------------------------------------------------------------------
  const drawCap = zipfSampler(nCaps, s, rng);
  const drawTool = zipfSampler(nTools, s, rng);
  const drawUser = zipfSampler(nUsers, s, rng);
  interface Draft {
    tool: number;
    parent?: Draft;
    deps: Draft[];
  }
  const block = (c: number): Draft[] => {
    const pool = capTools[c]!;
    const deps = capDeps[c]!;
    const kept: (Draft | undefined)[] = [];
    const out: Draft[] = [];
    pool.forEach((tool, j) => {
      if (j > 0 && rng() < DEFAULTS.skipShare) {
        kept.push(undefined);
        return;
      }
      const ds = deps[j]!.map((i) => kept[i]).filter((d): d is Draft => d !== undefined);
      if (ds.length === 0 && out.length > 0) ds.push(out[out.length - 1]!);
      const d: Draft = { tool, deps: ds };
      kept.push(d);
      out.push(d);
    });
    if (out.length > 1 && rng() < nestedShare) for (const d of out.slice(1)) d.parent = out[0]!;
    return out;
  };
  const traces: TraceRecord[] = [];
  let totalSteps = 0;
  for (let i = 0; i < nTraces; i++) {
    const c = drawCap();
    let drafts_: Draft[] = [];
    const pre = capDependsOn[c]!;
    if (pre >= 0 && rng() < DEFAULTS.prerequisiteShare) drafts_ = block(pre);
    const main = block(c);
    if (drafts_.length > 0) main[0]!.deps.push(drafts_[drafts_.length - 1]!);
    drafts_ = drafts_.concat(main);
    if (rng() < noise) drafts_.splice(Math.floor(rng() * (drafts_.length + 1)), 0, { tool: drawTool(), deps: [] });
    let failAt = -1;
    if (rng() < failureRate) failAt = Math.floor(rng() * drafts_.length);
    const run = failAt >= 0 ? drafts_.slice(0, failAt + 1) : drafts_;
    const index = new Map(run.map((d, k) => [d, k]));
    const startMs = SYNTHETIC_EPOCH_MS + i * 30_000 + Math.floor(rng() * 30_000);
    let clock = startMs;
    const steps: TraceStep[] = run.map((d, k) => {
      const durationMs = Math.round(drafts[d.tool]!.latencyMs * (0.5 + rng()));
      const step: TraceStep = {
        tool: drafts[d.tool]!.tool.id,
        success: k !== failAt,
        durationMs,
        at: new Date(clock).toISOString(),
      };
      clock += durationMs;
      if (d.parent !== undefined) {
        const p = index.get(d.parent);
        if (p !== undefined) step.parent = p;
      }
      const deps = [
        ...new Set(d.deps.map((x) => index.get(x)).filter((x): x is number => x !== undefined && x < k)),
      ].sort((a, b) => a - b);
      if (deps.length > 0) step.dependsOn = deps;
      return step;
    });
    totalSteps += steps.length;
    const head = drafts[capTools[c]![0]!]!;
    traces.push({
      id: `syn-trace:${i}`,
      user: `user-${drawUser()}`,
      intent: pick(INTENT_TEMPLATES, rng)(capPhrase[c]!, head.domain),
      capability: capabilities[c]!.id,
      startedAt: new Date(startMs).toISOString(),
      success: failAt < 0,
      steps,
    });
  }

  return {
    catalog: { tools: drafts.map((d) => d.tool), capabilities },
    traces,
    edges,
    workflows,
    meta: { seed, tools: nTools, servers: nServers, capabilities: nCaps, traces: nTraces, steps: totalSteps },
  };
}
