/**
 * The feedback loop (docs/decisions/gate-thresholds.md): every recorded execution with a user updates
 * that user's persisted history — reputation = 0.7 × recent success (last 10) + 0.3 × overall, per-domain
 * success rates (domain and operation detected from the execution's intent), error and task counts — and
 * drops the user's cached context. Executions are applied in start-time order, one batch per user.
 */

import { emptyUserHistory, type UserHistory, updateUserHistory } from "../../algorithms/thresholds/user-history.ts";
import { drain } from "../../algorithms/timing/drain.ts";
import type { ExecutionInput } from "../formats/schemas.ts";
import type { Gatekeeper } from "../gate/gatekeeper.ts";
import { drainInSlices } from "../view/background.ts";
import type { UserHistoryUpdate } from "./import.ts";

/**
 * The histories of the executions' users after them, from their `stored` histories (absent: a new user).
 * No I/O; context detection runs once per distinct intent.
 */
export function updatedUserHistories(
  gate: Gatekeeper,
  stored: ReadonlyMap<string, UserHistory>,
  executions: readonly ExecutionInput[],
): [string, UserHistory][] {
  return drain(updatedUserHistoriesSteps(gate, stored, executions));
}

/** Executions applied between two yields of `updatedUserHistoriesSteps`. */
const STEP_EXECUTIONS = 250;

/**
 * `updatedUserHistories` in steps, yielding every STEP_EXECUTIONS executions: a file of 5,000 traces is tens of
 * ms of context detection and history updates, drained in slices by a trace import.
 */
export function* updatedUserHistoriesSteps(
  gate: Gatekeeper,
  stored: ReadonlyMap<string, UserHistory>,
  executions: readonly ExecutionInput[],
): Generator<void, [string, UserHistory][], void> {
  const byUser = new Map<string, ExecutionInput[]>();
  for (const e of executions) {
    if (!e.user) continue;
    const list = byUser.get(e.user) ?? [];
    list.push(e);
    byUser.set(e.user, list);
  }
  const detectedByIntent = new Map<string, ReturnType<typeof gate.detectors.detect>>();
  const detect = (intent: string) => {
    let d = detectedByIntent.get(intent);
    if (!d) {
      d = gate.detectors.detect({ text: intent });
      detectedByIntent.set(intent, d);
    }
    return d;
  };
  const updated: [string, UserHistory][] = [];
  let applied = 0;
  for (const [user, list] of byUser) {
    let h = stored.get(user) ?? emptyUserHistory();
    for (const e of list.slice().sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime())) {
      if (++applied % STEP_EXECUTIONS === 0) yield;
      const detected = e.intent ? detect(e.intent) : undefined;
      const failed = e.steps.find((s) => !s.success);
      h = updateUserHistory(h, {
        success: e.success,
        at: e.startedAt.getTime() + e.steps.reduce((t, s) => t + (s.durationMs ?? 0), 0),
        domain: detected?.domain,
        operationType: detected?.operationType,
        errorMessage: e.success ? undefined : failed ? `step ${failed.tool} failed` : "execution failed",
      });
    }
    updated.push([user, h]);
  }
  return updated;
}

/**
 * The user-history step for `importExecutions({ userHistory })`: the import reads the stored histories
 * in its transaction (a recorded execution: with its validation query) and writes these updates with
 * its inserts, only for executions actually inserted. The caller drops the users' cached contexts after.
 */
export function userHistoryUpdate(gate: Gatekeeper): UserHistoryUpdate {
  return (stored, executions) => updatedUserHistories(gate, stored, executions);
}

/**
 * Applies the executions to their users' histories through the gate's user store (read, update, write)
 * and drops the users' cached contexts: the path of a trace import, after its transaction. A recorded
 * execution instead passes `userHistoryUpdate` to the import, which writes in its own transaction.
 */
export async function applyUserHistory(
  gate: Gatekeeper,
  project: string,
  executions: readonly ExecutionInput[],
): Promise<number> {
  const users = [...new Set(executions.flatMap((e) => (e.user ? [e.user] : [])))];
  if (users.length === 0) return 0;
  const store = gate.userStore;
  const updated = await drainInSlices(
    updatedUserHistoriesSteps(gate, await store.loadMany(project, users), executions),
  );
  await store.saveMany(project, updated);
  for (const [user] of updated) gate.tracker.invalidate(project, user);
  return updated.length;
}
