/**
 * The feedback loop (seed 000 "Post-Execution Tracking"): every recorded execution with a user updates
 * that user's persisted history — reputation = 0.7 × recent success (last 10) + 0.3 × overall, per-domain
 * success rates (domain and operation detected from the execution's intent), error and task counts — and
 * drops the user's cached context. Executions are applied in start-time order, one batch per user.
 */
import { emptyUserHistory, updateUserHistory } from "../../algorithms/thresholds/user-history.ts";
import type { Kysely, Transaction } from "kysely";
import type { ExecutionInput } from "../formats/schemas.ts";
import type { Database } from "../store/schema.ts";
import { DbUserHistoryStore } from "../store/user-state.ts";
import type { Engine } from "./engine.ts";

/**
 * Applies the executions to their users' histories. With `db` (the import's transaction) the histories
 * are written in the same transaction as the executions, so a recorded execution costs one commit.
 * Context detection runs once per distinct intent.
 */
export async function applyUserHistory(engine: Engine, project: string, executions: readonly ExecutionInput[], db?: Kysely<Database> | Transaction<Database>): Promise<number> {
  const byUser = new Map<string, ExecutionInput[]>();
  for (const e of executions) {
    if (!e.user) continue;
    const list = byUser.get(e.user) ?? [];
    list.push(e);
    byUser.set(e.user, list);
  }
  if (byUser.size === 0) return 0;
  const store = db ? new DbUserHistoryStore(db as Kysely<Database>) : engine.gatekeeper.userStore;
  const detectedByIntent = new Map<string, ReturnType<typeof engine.gatekeeper.detectors.detect>>();
  const detect = (intent: string) => {
    let d = detectedByIntent.get(intent);
    if (!d) {
      d = engine.gatekeeper.detectors.detect({ text: intent });
      detectedByIntent.set(intent, d);
    }
    return d;
  };
  const stored = await store.loadMany(project, [...byUser.keys()]);
  const updated: [string, ReturnType<typeof emptyUserHistory>][] = [];
  for (const [user, list] of byUser) {
    let h = stored.get(user) ?? emptyUserHistory();
    for (const e of list.slice().sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime())) {
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
  await store.saveMany(project, updated);
  for (const [user] of updated) engine.gatekeeper.tracker.invalidate(project, user);
  return updated.length;
}
