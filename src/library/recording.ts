/**
 * The facade's execution writes (trace imports, one recorded execution) and what each one tells the read models
 * after it: the intent memory marked stale, the history extended, the users' histories updated, the snapshot
 * patched in place or dropped, and the recommendation log told of the outcome. `Toolgraph` (toolgraph.ts) binds
 * these to its private engine (facade.ts); a job never writes through here.
 */
import type { ExecutionInput } from "../formats/schemas.ts";
import {
  importExecutions,
  importTraces,
  type TraceImportOptions,
  type TraceImportResult,
  validateExecution,
} from "../jobs/import.ts";
import { applyUserHistory, userHistoryUpdate } from "../jobs/user-history.ts";
import { SLICE_MS, yieldToEventLoop } from "../view/background.ts";
import type { Engine } from "../view/engine.ts";
import { appendToHistory } from "../view/history.ts";
import { markMemoryDirty } from "../view/intent-memory.ts";
import { type Facade, type ProjectScoped, projectOf } from "./facade.ts";
import { textOf } from "./writes.ts";

export const EXECUTION_WRITES = {
  /** Imports traces given as JSONL text, an array of executions, or `{ file }`. */
  async importTraces(
    f: Facade,
    input: string | object[] | { file: string },
    opts: ProjectScoped & TraceImportOptions = {},
  ): Promise<TraceImportResult> {
    const { engine } = f;
    const project = projectOf(f, opts);
    let r: TraceImportResult & { executions?: ExecutionInput[] };
    if (Array.isArray(input)) {
      // Validated in slices: 5,000 executions are ~100 ms of schema checks.
      const records: { line: number; value: ExecutionInput }[] = [];
      let t = performance.now();
      for (let i = 0; i < input.length; i++) {
        records.push({ line: i + 1, value: validateExecution(input[i], "executions", i + 1) });
        if (performance.now() - t > SLICE_MS) {
          await yieldToEventLoop();
          t = performance.now();
        }
      }
      r = {
        ...(await importExecutions(engine.db, project, records, "executions", opts)),
        executions: records.map((x) => x.value),
      };
    } else {
      const { text, file } = await textOf(input, "traces");
      r = await importTraces(engine.db, project, text, file, opts);
    }
    const { executions, ...result } = r;
    await afterExecutions(engine, project, result, undefined, executions);
    return result;
  },

  /** Records one execution (idempotent by id) and patches the read model in place. */
  async recordExecution(
    f: Facade,
    execution: ExecutionInput | object,
    opts: ProjectScoped & TraceImportOptions = {},
  ): Promise<TraceImportResult> {
    const { engine } = f;
    const project = projectOf(f, opts);
    const value = validateExecution(execution);
    const r = await importExecutions(engine.db, project, [{ line: 1, value }], "execution", {
      ...opts,
      userHistory: userHistoryUpdate(engine.gatekeeper),
    });
    await afterExecutions(engine, project, r, [value], undefined, true);
    if (r.inserted > 0) {
      const v = value as ExecutionInput & { recommendationId?: string };
      f.recommendations.outcome({
        project,
        recommendationId: v.recommendationId ?? null,
        session: v.id,
        kind: "execution",
        success: v.success,
        followed: null,
        executionId: v.id,
        tools: v.steps.map((st) => st.tool),
      });
    }
    return r;
  },
};

async function afterExecutions(
  engine: Engine,
  project: string,
  r: TraceImportResult,
  executions?: ExecutionInput[],
  all?: ExecutionInput[],
  historyDone = false,
): Promise<void> {
  if (r.inserted > 0) {
    markMemoryDirty(engine, project);
    appendToHistory(engine, project, r.graphVersion, r.insertedIds);
  }
  const inserted = new Set(r.insertedIds);
  const fresh = (executions ?? all ?? []).filter((e) => inserted.has(e.id));
  if (historyDone) {
    for (const e of fresh) if (e.user) engine.gatekeeper.tracker.invalidate(project, e.user);
  } else if (fresh.length > 0) await applyUserHistory(engine.gatekeeper, project, fresh);
  if (r.autoRegistered.length > 0 || !executions) engine.invalidate(project);
  else if (r.inserted > 0) engine.afterRecord(project, executions, r.graphVersion);
}
