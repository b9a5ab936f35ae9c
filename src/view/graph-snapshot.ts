/**
 * The per-project read model of the tool graph at one graph version: integer ids, a CSR of edge
 * qualities for hot loops, a CSR of transition counts (what followed what), a set of direct
 * `dependency` pairs, per-tool counters and capabilities. Built once per version from the store; a recorded execution in this process is
 * patched into the edge evidence and tool counters, and the CSR is rebuilt lazily from memory (no
 * database round trip). See ARCHITECTURE.md "Read model".
 */
import { buildCsr, buildCsrSteps, type Csr } from "../../algorithms/graph/csr.ts";
import { learnEdges, successionsOf } from "../../algorithms/graph/edge-learning.ts";
import { type EdgeEvidence, type EdgeSource, type EdgeType, edgeQuality } from "../../algorithms/graph/edge-quality.ts";
import type { ExecutionInput } from "../formats/schemas.ts";
import type { CapabilityRow, EdgeRow, ToolRow, ToolStatRow } from "../store/reads.ts";
import { type DerivedKey, DerivedState } from "./derived.ts";

export interface EdgeState {
  from: string;
  to: string;
  counts: Record<EdgeType, number>;
  declared: Record<EdgeType, number>;
  /** Executions in which `from` was followed by `to`, each once whatever the edge types (edge-learning.ts). */
  successions: number;
  weight: number;
  type: EdgeType | undefined;
  source: EdgeSource | undefined;
  lastSeen: number;
}

export interface GraphSnapshotInput {
  project: string;
  version: number;
  tools: ToolRow[];
  edges: EdgeRow[];
  stats: ToolStatRow[];
  capabilities: CapabilityRow[];
}

function evidenceOf(e: EdgeState): EdgeEvidence {
  const ev = (t: EdgeType) => ({ count: e.counts[t], declared: e.declared[t] as 0 | 1 | 2 | 3 });
  return { dependency: ev("dependency"), contains: ev("contains"), provides: ev("provides"), sequence: ev("sequence") };
}

export class GraphSnapshot {
  readonly project: string;
  version: number;
  readonly tools: ToolRow[];
  /** How many tools are unavailable (their upstream server stopped listing them): the jobs skip them. */
  readonly unavailable: number;
  readonly index: Map<string, number>;
  readonly capabilities: CapabilityRow[];
  readonly capabilityIndex: Map<string, number>;
  /** Real execution counts per tool (one per step). */
  readonly executions: Uint32Array;
  readonly successes: Uint32Array;
  readonly totalDurationMs: Float64Array;
  /** Epoch ms of last use, NaN when never used. */
  readonly lastUsedAt: Float64Array;
  /** Epoch ms when each tool entered the catalog (ToolRow.addedAt). */
  readonly addedAt: Float64Array;
  private readonly edgeStates: Map<string, EdgeState>;
  private csrCache: Csr | undefined;
  private transitionsCache: Csr | undefined;
  private dependencyPairs: Set<number> | undefined;
  /** Edge states by u × n + v (edgeAt), built on first use and kept current by patchExecution. */
  private edgeByPair: Map<number, EdgeState> | undefined;
  private dependencyCsrCache: Csr | undefined;
  private blendedCsrCache: Csr | undefined;
  /** Incremented on every in-place patch; analytics compare it to know they are stale. */
  patchCount = 0;
  /** Derived state of this view (derived.ts): graph-scoped values are dropped by every in-place patch. */
  private readonly derivedState = new DerivedState();

  constructor(input: GraphSnapshotInput) {
    this.project = input.project;
    this.version = input.version;
    this.tools = input.tools;
    this.unavailable = input.tools.reduce((n, t) => n + (t.available === false ? 1 : 0), 0);
    this.index = new Map(input.tools.map((t, i) => [t.id, i]));
    this.capabilities = input.capabilities;
    this.capabilityIndex = new Map(input.capabilities.map((c, i) => [c.id, i]));
    const n = input.tools.length;
    this.executions = new Uint32Array(n);
    this.successes = new Uint32Array(n);
    this.totalDurationMs = new Float64Array(n);
    this.lastUsedAt = new Float64Array(n).fill(Number.NaN);
    this.addedAt = Float64Array.from(input.tools, (t) => t.addedAt);
    for (const s of input.stats) {
      const i = this.index.get(s.tool);
      if (i === undefined) continue;
      this.executions[i] = s.executions;
      this.successes[i] = s.successes;
      this.totalDurationMs[i] = s.totalDurationMs;
      this.lastUsedAt[i] = s.lastUsedAt ? s.lastUsedAt.getTime() : Number.NaN;
    }
    this.edgeStates = new Map();
    for (const e of input.edges) {
      this.edgeStates.set(`${e.from}\u0000${e.to}`, {
        from: e.from,
        to: e.to,
        counts: { ...e.counts },
        declared: { ...e.declared },
        successions: e.successions,
        weight: e.weight,
        type: e.type,
        source: e.source,
        lastSeen: e.lastSeen ? e.lastSeen.getTime() : Number.NaN,
      });
    }
  }

  get n(): number {
    return this.tools.length;
  }

  /** Edge states (from, to, per-type evidence, weight), in insertion order. */
  edges(): IterableIterator<EdgeState> {
    return this.edgeStates.values();
  }

  edge(from: string, to: string): EdgeState | undefined {
    return this.edgeStates.get(`${from}\u0000${to}`);
  }

  /** The edge state u → v by tool index (the same object as `edge(id u, id v)`), or undefined. */
  edgeAt(u: number, v: number): EdgeState | undefined {
    if (!this.edgeByPair) {
      const map = new Map<number, EdgeState>();
      for (const e of this.edgeStates.values()) {
        const f = this.index.get(e.from);
        const t = this.index.get(e.to);
        if (f !== undefined && t !== undefined) map.set(f * this.n + t, e);
      }
      this.edgeByPair = map;
    }
    return this.edgeByPair.get(u * this.n + v);
  }

  /**
   * The value of a derived-state key for this graph version (and these `inputs`, compared by identity): built
   * once by `build`, then reused until the snapshot moves to another version (derived.ts).
   */
  derived<T>(key: DerivedKey<T>, build: () => T, inputs?: readonly unknown[]): T {
    return this.derivedState.get(key, build, inputs);
  }

  /** Drops the value of `key` when it is still `value` (DerivedState.forget). */
  forgetDerived<T>(key: DerivedKey<T>, value: T): void {
    this.derivedState.forget(key, value);
  }

  /** True when the snapshot holds a value for `key` (tests, diagnostics). */
  hasDerived(key: DerivedKey<unknown>): boolean {
    return this.derivedState.has(key);
  }

  /** CSR of edge qualities (weights in (0,1]). */
  get csr(): Csr {
    if (!this.csrCache) {
      const list: { from: number; to: number; weight: number }[] = [];
      for (const e of this.edgeStates.values()) {
        const f = this.index.get(e.from);
        const t = this.index.get(e.to);
        if (f === undefined || t === undefined || e.weight <= 0) continue;
        list.push({ from: f, to: t, weight: e.weight });
      }
      this.csrCache = buildCsr(this.n, list);
    }
    return this.csrCache;
  }

  /**
   * `csr` in steps (a yield every few thousand edges), for the analytics refresh on the event loop; the cached
   * CSR is kept unless the snapshot was patched meanwhile (then the next read builds the patched one).
   */
  *csrSteps(): Generator<void, Csr, void> {
    if (this.csrCache) return this.csrCache;
    const patch = this.patchCount;
    const list: { from: number; to: number; weight: number }[] = [];
    let read = 0;
    for (const e of this.edgeStates.values()) {
      if (++read % 8192 === 0) yield;
      const f = this.index.get(e.from);
      const t = this.index.get(e.to);
      if (f === undefined || t === undefined || e.weight <= 0) continue;
      list.push({ from: f, to: t, weight: e.weight });
    }
    const built = yield* buildCsrSteps(this.n, list);
    if (this.patchCount !== patch) return built;
    this.csrCache ??= built;
    return this.csrCache;
  }

  /** CSR of observed successions: weight = the pair's succession count (each execution once, edge-learning.ts). */
  get transitions(): Csr {
    if (!this.transitionsCache) {
      const list: { from: number; to: number; weight: number }[] = [];
      for (const e of this.edgeStates.values()) {
        const f = this.index.get(e.from);
        const t = this.index.get(e.to);
        const w = e.successions;
        if (f === undefined || t === undefined || w <= 0) continue;
        list.push({ from: f, to: t, weight: w });
      }
      this.transitionsCache = buildCsr(this.n, list);
    }
    return this.transitionsCache;
  }

  /**
   * CSR of `dependency` evidence only: weight = 1.0 × multiplier of the dependency type's level
   * (observed 1.0 at ≥ 3 observations or declared observed, inferred 0.7, template 0.5).
   */
  get dependencyCsr(): Csr {
    if (!this.dependencyCsrCache) {
      const list: { from: number; to: number; weight: number }[] = [];
      for (const e of this.edgeStates.values()) {
        const learned = e.counts.dependency >= 3 ? 3 : e.counts.dependency >= 1 ? 2 : 0;
        const level = Math.max(learned, e.declared.dependency);
        if (level === 0) continue;
        const f = this.index.get(e.from);
        const t = this.index.get(e.to);
        if (f === undefined || t === undefined) continue;
        list.push({ from: f, to: t, weight: level === 3 ? 1 : level === 2 ? 0.7 : 0.5 });
      }
      this.dependencyCsrCache = buildCsr(this.n, list);
    }
    return this.dependencyCsrCache;
  }

  /**
   * CSR for DAG building that prefers dependency evidence: weight = max(dependency weight,
   * 0.5 × history quality), so a path over dependency edges is always cheaper than the same path over
   * weaker history edges, and tools without dependency evidence still relate through history.
   */
  get blendedCsr(): Csr {
    if (!this.blendedCsrCache) {
      const dep = this.dependencyCsr;
      const list: { from: number; to: number; weight: number }[] = [];
      const csr = this.csr;
      for (let u = 0; u < csr.n; u++) {
        for (let k = csr.offsets[u]!; k < csr.offsets[u + 1]!; k++)
          list.push({ from: u, to: csr.targets[k]!, weight: 0.5 * csr.weights[k]! });
        for (let k = dep.offsets[u]!; k < dep.offsets[u + 1]!; k++)
          list.push({ from: u, to: dep.targets[k]!, weight: dep.weights[k]! });
      }
      this.blendedCsrCache = buildCsr(this.n, list);
    }
    return this.blendedCsrCache;
  }

  /**
   * The effective members of a capability: its declared tools, plus tools observed in at least half of
   * the executions labelled with it (so occasional noise steps do not dilute the capability).
   */
  capabilityMembers(c: CapabilityRow): string[] {
    const minObs = Math.max(1, 0.5 * c.executions);
    return c.members.filter((m) => m.declared || m.observations >= minObs).map((m) => m.tool);
  }

  /** True when u→v carries `dependency` evidence (declared or learned). */
  isDependencyEdge(u: number, v: number): boolean {
    if (!this.dependencyPairs) {
      const set = new Set<number>();
      for (const e of this.edgeStates.values()) {
        if (e.counts.dependency > 0 || e.declared.dependency > 0) {
          const f = this.index.get(e.from);
          const t = this.index.get(e.to);
          if (f !== undefined && t !== undefined) set.add(f * this.n + t);
        }
      }
      this.dependencyPairs = set;
    }
    return this.dependencyPairs.has(u * this.n + v);
  }

  /**
   * Applies one recorded execution in place (its steps were stored by the write path): tool counters
   * and learned edge counts. Returns false when the execution names a tool unknown to this snapshot
   * (the caller then reloads from the store).
   */
  patchExecution(e: ExecutionInput, version: number): boolean {
    for (const s of e.steps) if (!this.index.has(s.tool)) return false;
    for (const s of e.steps) {
      const i = this.index.get(s.tool)!;
      this.executions[i]!++;
      if (s.success) this.successes[i]!++;
      this.totalDurationMs[i]! += s.durationMs ?? 0;
      const at = (s.at ?? e.startedAt).getTime();
      if (!(this.lastUsedAt[i]! >= at)) this.lastUsedAt[i] = at;
    }
    const seen = e.steps.reduce((t, s) => (s.at && s.at.getTime() > t ? s.at.getTime() : t), e.startedAt.getTime());
    const observations = learnEdges(e.steps);
    for (const ob of observations) {
      const key = `${ob.from}\u0000${ob.to}`;
      let st = this.edgeStates.get(key);
      if (!st) {
        st = {
          from: ob.from,
          to: ob.to,
          counts: { dependency: 0, contains: 0, provides: 0, sequence: 0 },
          declared: { dependency: 0, contains: 0, provides: 0, sequence: 0 },
          successions: 0,
          weight: 0,
          type: undefined,
          source: undefined,
          lastSeen: seen,
        };
        this.edgeStates.set(key, st);
        this.edgeByPair?.set(this.index.get(ob.from)! * this.n + this.index.get(ob.to)!, st);
      }
      st.counts[ob.type]++;
      if (!(st.lastSeen >= seen)) st.lastSeen = seen;
      const q = edgeQuality(evidenceOf(st));
      st.weight = q.weight;
      st.type = q.type;
      st.source = q.source;
    }
    // Every succession is also one of the observations above, so its edge state exists.
    for (const ob of successionsOf(observations)) this.edgeStates.get(`${ob.from}\u0000${ob.to}`)!.successions++;
    this.csrCache = undefined;
    this.transitionsCache = undefined;
    this.dependencyPairs = undefined;
    this.dependencyCsrCache = undefined;
    this.blendedCsrCache = undefined;
    this.derivedState.clear("graph");
    this.version = version;
    this.patchCount++;
    return true;
  }
}
