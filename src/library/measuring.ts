/**
 * The facade's library-only reads for measurements (docs/decisions/layout.md): the intent memory on its own, the
 * search and next-step read models as their cores take them, the memory's size and neighbours, the stored execution sequences, the gate's calibration
 * pairs and its decision for one score. No operation of the table serves them, so no HTTP, MCP or CLI request
 * reaches them (test/library/recall.test.ts, test/library/next-step-model.test.ts).
 */
import { type CalibrationOptions, type CalibrationPairs, calibrationPairs } from "../jobs/fit-calibration.ts";
import { type DagModel, dagModel } from "../jobs/dag-model.ts";
import { type GateQuery, gateDecision } from "../jobs/gate-decision.ts";
import {
  type ExecutionSequence,
  executionSequences,
  type NextStepMode,
  type NextStepReadModel,
  nextStepReadModel,
} from "../jobs/next-step-model.ts";
import { type MemoryNeighbour, type MemoryStats, memoryNeighbours, memoryStats } from "../jobs/memory-stats.ts";
import { type RecallAnswer, type RecallOptions, recallPast } from "../jobs/recall.ts";
import { type RoutingModel, routingModel } from "../jobs/routing-model.ts";
import { type SearchModel, searchModel } from "../jobs/search-model.ts";
import { type Facade, type ProjectScoped, projectOf } from "./facade.ts";

export const MEASURING = {
  /** What past requests similar to `intent` did: the intent memory on its own (jobs/recall.ts). */
  async recall(f: Facade, intent: string, opts: ProjectScoped & RecallOptions = {}): Promise<RecallAnswer> {
    return recallPast(await f.engine.view(projectOf(f, opts)), intent, opts);
  },

  /** The search read model as the ranking core (algorithms/search/rank-candidates.ts) takes it. */
  async searchModel(f: Facade, opts: ProjectScoped = {}): Promise<SearchModel> {
    return searchModel(await f.engine.view(projectOf(f, opts)));
  },

  /** The two-hop routing's read model as its core (algorithms/search/namespace-routing.ts) takes it. */
  async routingModel(f: Facade, opts: ProjectScoped = {}): Promise<RoutingModel> {
    return routingModel(await f.engine.view(projectOf(f, opts)));
  },

  /** The next-step read model as its core (algorithms/prediction/next-step.ts) takes it, with a mode's weights. */
  async nextStepModel(f: Facade, opts: ProjectScoped & { mode?: NextStepMode } = {}): Promise<NextStepReadModel> {
    return nextStepReadModel(await f.engine.view(projectOf(f, opts)), opts.mode);
  },

  /** The DAG core of the project's graph version (jobs/dag-model.ts). */
  async dagModel(f: Facade, opts: ProjectScoped = {}): Promise<DagModel> {
    return dagModel(await f.engine.view(projectOf(f, opts)));
  },

  /** The most recent `limit` stored executions with their steps, oldest first. */
  async executionSequences(f: Facade, opts: ProjectScoped & { limit: number }): Promise<ExecutionSequence[]> {
    return executionSequences(await f.engine.view(projectOf(f, opts)), opts.limit);
  },

  /** The gate's out-of-sample calibration pairs (score, outcome) on the project's own traces, as `calibrate` fits. */
  async calibrationPairs(f: Facade, opts: ProjectScoped & CalibrationOptions = {}): Promise<CalibrationPairs> {
    return calibrationPairs(await f.engine.view(projectOf(f, opts)), opts);
  },

  /** The gate's decision for one answer of `kind` ("search", "next-step", …) with raw `score`. */
  async gateDecision(f: Facade, kind: string, score: number, req: ProjectScoped & GateQuery) {
    const { project, ...rest } = req;
    return gateDecision(await f.engine.view(projectOf(f, { project })), kind, score, rest);
  },

  /** The intent memory's size: executions, distinct intents, the bytes of its typed arrays. */
  async memoryStats(f: Facade, opts: ProjectScoped = {}): Promise<MemoryStats> {
    return memoryStats(await f.engine.view(projectOf(f, opts)));
  },

  /** The intent memory's nearest distinct intents per query vector: its semantic channel's, or an exact scan's. */
  async memoryNeighbours(
    f: Facade,
    vectors: readonly Float32Array[],
    opts: ProjectScoped & { k: number; exact?: boolean },
  ): Promise<MemoryNeighbour[][]> {
    return memoryNeighbours(await f.engine.view(projectOf(f, opts)), vectors, opts);
  },
};
