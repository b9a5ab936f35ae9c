/**
 * The project's execution history as this engine last read it, per graph version: read once and shared by the
 * intent memory, the next-step weight fit and the calibration (each read the whole history on its own before:
 * four to five reads of every execution and step between an import and its first calibrated answer), and
 * extended in place by this engine's own imports — only the new executions are read — so a batch of traces
 * costs a read of the batch, not of the history (docs/decisions/ingestion-first-answer.md).
 *
 * Order: start time, then id, as the database sorts them (the one read orders; an append is taken only when
 * every new execution starts after the last one held, else the history is read again), so each view lists
 * exactly what its own query listed. A version this engine did not write (another process, a catalog import)
 * is read in full on the next use.
 */

import { drain } from "../../algorithms/timing/drain.ts";
import type { ExecutionHistoryRow, ExecutionMemoryRow, ExecutionSequenceRow } from "../store/reads.ts";
import { loadExecutionHistory } from "../store/reads.ts";
import type { Engine } from "./engine.ts";

/** One project's history in one engine (Engine.histories). */
export interface HistorySlot {
  version: number;
  rows: Promise<ExecutionHistoryRow[]>;
}

/** Every execution of the project at the snapshot's graph version, by start time then id. */
export async function executionHistory(engine: Engine, project: string): Promise<ExecutionHistoryRow[]> {
  const s = await engine.snapshot(project);
  const slot = engine.histories.get(project);
  if (slot && slot.version === s.version) {
    const rows = await slot.rows.catch(() => undefined);
    if (rows) return rows;
  }
  const fresh: HistorySlot = { version: s.version, rows: loadExecutionHistory(engine.db, project) };
  engine.histories.set(project, fresh);
  fresh.rows.catch(() => {
    if (engine.histories.get(project) === fresh) engine.histories.delete(project);
  });
  return fresh.rows;
}

/**
 * After this engine stored executions `ids` and bumped the version to `version`: extends the held history by
 * reading only those executions, when it holds the version before and they all start after its last one;
 * otherwise forgets it (read in full on the next use).
 */
export function appendToHistory(engine: Engine, project: string, version: number, ids: readonly string[]): void {
  const slot = engine.histories.get(project);
  if (!slot) return;
  if (slot.version !== version - 1 || ids.length === 0) {
    engine.histories.delete(project);
    return;
  }
  const next: HistorySlot = {
    version,
    rows: slot.rows.then(async (rows) => {
      const added = await loadExecutionHistory(engine.db, project, ids);
      const last = rows.length > 0 ? rows[rows.length - 1]!.startedAt.getTime() : Number.NEGATIVE_INFINITY;
      // A new array: views built from the previous version keep their own.
      if (added.length === 0 || added[0]!.startedAt.getTime() > last) return rows.concat(added);
      // Already read (a full read raced the write), else out of order: read the history again.
      const held = new Set(rows.map((r) => r.id));
      return added.every((r) => held.has(r.id)) ? rows : loadExecutionHistory(engine.db, project);
    }),
  };
  engine.histories.set(project, next);
  next.rows.catch(() => {
    if (engine.histories.get(project) === next) engine.histories.delete(project);
  });
}

/** The executions with an intent, as the intent memory lists them (start time, then id). */
export function memoryRowsOf(rows: readonly ExecutionHistoryRow[]): ExecutionMemoryRow[] {
  return rows.filter(
    (r): r is ExecutionHistoryRow & { intent: string; intentHash: string } => r.intent !== null,
  ) as ExecutionMemoryRow[];
}

/** Execution id → intent. */
export function intentsOf(rows: readonly ExecutionHistoryRow[]): Map<string, string> {
  return drain(intentsOfSteps(rows));
}

/** `intentsOf`, yielding every 2,000 rows (the fit and the calibration drain it in slices: 17k executions). */
export function* intentsOfSteps(rows: readonly ExecutionHistoryRow[]): Generator<void, Map<string, string>, void> {
  const out = new Map<string, string>();
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % 2000 === 0) yield;
    const r = rows[i]!;
    if (r.intent !== null) out.set(r.id, r.intent);
  }
  return out;
}

/**
 * The most recent `limit` executions, oldest first, as `loadExecutionSequences` lists them: the database's
 * order (start time descending, then id ascending) cut at `limit`, reversed — so executions that start at the
 * same time come in descending id.
 */
export function recentSequences(rows: readonly ExecutionHistoryRow[], limit: number): ExecutionSequenceRow[] {
  const out: ExecutionSequenceRow[] = [];
  let end = rows.length;
  while (end > 0 && out.length < limit) {
    const t = rows[end - 1]!.startedAt.getTime();
    let start = end - 1;
    while (start > 0 && rows[start - 1]!.startedAt.getTime() === t) start--;
    for (let i = start; i < end && out.length < limit; i++) out.push(rows[i]!);
    end = start;
  }
  return out.reverse();
}
