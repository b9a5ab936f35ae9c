/** The intent memory's rows: the past executions in columns, packed for recall. */

import { drain } from "../../algorithms/timing/drain.ts";
import type { ExecutionMemoryRow } from "../store/reads.ts";
import type { MemoryIndex } from "./intent-memory.ts";

/**
 * The past executions in columns (struct of arrays) instead of 100k row objects: at 100k executions the row
 * objects (a Date, an id string, a 64-hex intent hash, a steps array of objects each) took ~120 MiB of JS heap
 * and a major GC had to trace every one of them; the columns are typed arrays plus interned strings.
 * Execution i: ids[i], startedAt[i] (epoch ms), success[i], user users[userOf[i]] (−1: none), capability
 * capabilities[capabilityOf[i]] (−1: none), steps k ∈ [stepOffsets[i], stepOffsets[i + 1]): tool
 * stepTools[stepTool[k]], success stepSuccess[k].
 */
export interface MemoryRows {
  length: number;
  ids: string[];
  startedAt: Float64Array;
  /** When each was recorded (epoch ms). */
  recordedAt: Float64Array;
  success: Uint8Array;
  userOf: Int32Array;
  users: string[];
  capabilityOf: Int32Array;
  capabilities: string[];
  stepOffsets: Int32Array;
  stepTool: Int32Array;
  stepTools: string[];
  stepSuccess: Uint8Array;
}

/** Past execution i of the memory as one object (built on demand from the columns). */
export function memoryRow(
  mem: MemoryIndex,
  i: number,
): {
  id: string;
  intent: string;
  user: string | null;
  capability: string | null;
  startedAt: number;
  success: boolean;
  steps: { tool: string; success: boolean }[];
} {
  const rows = mem.rows;
  const steps: { tool: string; success: boolean }[] = [];
  for (let k = rows.stepOffsets[i]!; k < rows.stepOffsets[i + 1]!; k++)
    steps.push({ tool: rows.stepTools[rows.stepTool[k]!]!, success: rows.stepSuccess[k] === 1 });
  const user = rows.userOf[i]!;
  const cap = rows.capabilityOf[i]!;
  return {
    id: rows.ids[i]!,
    intent: mem.texts[mem.textOf[i]!]!,
    user: user >= 0 ? rows.users[user]! : null,
    capability: cap >= 0 ? rows.capabilities[cap]! : null,
    startedAt: rows.startedAt[i]!,
    success: rows.success[i] === 1,
    steps,
  };
}

/** Columns of the loaded rows (interning users, capabilities and tool ids). */
export function toMemoryRows(rows: readonly ExecutionMemoryRow[]): MemoryRows {
  return appendMemoryRows(undefined, rows);
}

/**
 * The columns of `held` followed by `rows`: equal to toMemoryRows over all rows (the tables keep first-seen order),
 * copying the held columns instead of reading their rows again. `held` is not changed.
 */
export function appendMemoryRows(held: MemoryRows | undefined, rows: readonly ExecutionMemoryRow[]): MemoryRows {
  return drain(appendMemoryRowsSteps(held, rows));
}

/** Rows written between two yields of `appendMemoryRowsSteps`. */
const STEP_ROWS = 2000;

/**
 * `appendMemoryRows` in steps, yielding every STEP_ROWS rows (17.5k executions of 100k steps are tens of ms),
 * for the memory's builds on the event loop (drained in slices).
 */
export function* appendMemoryRowsSteps(
  held: MemoryRows | undefined,
  rows: readonly ExecutionMemoryRow[],
): Generator<void, MemoryRows, void> {
  const n0 = held?.length ?? 0;
  const n = n0 + rows.length;
  const intern = (table: string[], index: Map<string, number>, v: string | null): number => {
    if (v === null) return -1;
    let k = index.get(v);
    if (k === undefined) {
      k = table.length;
      table.push(v);
      index.set(v, k);
    }
    return k;
  };
  const tableIndex = (table: readonly string[]) => new Map(table.map((v, k) => [v, k] as const));
  const users: string[] = held ? [...held.users] : [];
  const userIndex = tableIndex(users);
  const capabilities: string[] = held ? [...held.capabilities] : [];
  const capIndex = tableIndex(capabilities);
  const stepTools: string[] = held ? [...held.stepTools] : [];
  const toolIndex = tableIndex(stepTools);
  const heldSteps = held ? held.stepOffsets[n0]! : 0;
  let steps = heldSteps;
  for (const r of rows) steps += r.steps.length;
  const out: MemoryRows = {
    length: n,
    ids: held ? held.ids.concat(new Array<string>(rows.length)) : new Array<string>(n),
    startedAt: new Float64Array(n),
    recordedAt: new Float64Array(n),
    success: new Uint8Array(n),
    userOf: new Int32Array(n),
    users,
    capabilityOf: new Int32Array(n),
    capabilities,
    stepOffsets: new Int32Array(n + 1),
    stepTool: new Int32Array(steps),
    stepTools,
    stepSuccess: new Uint8Array(steps),
  };
  if (held) {
    out.startedAt.set(held.startedAt.subarray(0, n0));
    out.recordedAt.set(held.recordedAt.subarray(0, n0));
    out.success.set(held.success.subarray(0, n0));
    out.userOf.set(held.userOf.subarray(0, n0));
    out.capabilityOf.set(held.capabilityOf.subarray(0, n0));
    out.stepOffsets.set(held.stepOffsets.subarray(0, n0));
    out.stepTool.set(held.stepTool.subarray(0, heldSteps));
    out.stepSuccess.set(held.stepSuccess.subarray(0, heldSteps));
  }
  let k = heldSteps;
  for (let j = 0; j < rows.length; j++) {
    if (j > 0 && j % STEP_ROWS === 0) yield;
    const r = rows[j]!;
    const i = n0 + j;
    out.ids[i] = r.id;
    out.startedAt[i] = r.startedAt.getTime();
    out.recordedAt[i] = r.recordedAt;
    out.success[i] = r.success ? 1 : 0;
    out.userOf[i] = intern(users, userIndex, r.user);
    out.capabilityOf[i] = intern(capabilities, capIndex, r.capability);
    out.stepOffsets[i] = k;
    for (const st of r.steps) {
      out.stepTool[k] = intern(stepTools, toolIndex, st.tool);
      out.stepSuccess[k] = st.success ? 1 : 0;
      k++;
    }
  }
  out.stepOffsets[n] = k;
  return out;
}
