/**
 * The persistence ports the gate needs, declared with the store that implements them (src/store/user-state.ts
 * on the database; in-memory fakes in the gate's tests). The gate imports them from here, so the store
 * imports nothing from the gate. Their values are the algorithms' plain data shapes (type-only imports:
 * no algorithm code runs in the store).
 */
import type { ContextKey, ContextThresholdState } from "../../algorithms/thresholds/context-learning.ts";
import type { UserHistory } from "../../algorithms/thresholds/user-history.ts";

/** A learned threshold offset per context; `load` returns undefined for a context never seen. */
export interface ContextThresholdStore {
  load(key: ContextKey): Promise<ContextThresholdState | undefined>;
  save(key: ContextKey, state: ContextThresholdState): Promise<void>;
}

/** A user's task history per project; `load` returns undefined for a user never seen. */
export interface UserHistoryStore {
  load(project: string, user: string): Promise<UserHistory | undefined>;
  save(project: string, user: string, history: UserHistory): Promise<void>;
}
