/** Database implementations of the gate's persistence seams (user history, learned context thresholds). */
import { type Kysely, sql } from "kysely";
import type { ContextKey, ContextThresholdState } from "../../algorithms/thresholds/context-learning.ts";
import { contextKeyString } from "../../algorithms/thresholds/context-learning.ts";
import type { UserHistory } from "../../algorithms/thresholds/user-history.ts";
import type { ContextThresholdStore } from "../gate/context-threshold-learner.ts";
import type { UserHistoryStore } from "../gate/user-history-tracker.ts";
import { chunks } from "./catalog.ts";
import type { Database } from "./schema.ts";

export class DbUserHistoryStore implements UserHistoryStore {
  constructor(private readonly db: Kysely<Database>) {}

  async load(project: string, user: string): Promise<UserHistory | undefined> {
    const row = await this.db.selectFrom("user_history").select("history").where("project", "=", project).where("user_id", "=", user).executeTakeFirst();
    return row?.history as UserHistory | undefined;
  }

  async save(project: string, user: string, history: UserHistory): Promise<void> {
    await this.saveMany(project, [[user, history]]);
  }

  async saveMany(project: string, items: readonly (readonly [string, UserHistory])[]): Promise<void> {
    for (const part of chunks(items, 1000)) {
      await this.db
        .insertInto("user_history")
        .values(part.map(([user, h]) => ({ project, user_id: user, history: JSON.stringify(h) })))
        .onConflict((oc) => oc.columns(["project", "user_id"]).doUpdateSet({ history: sql`excluded.history`, updated_at: sql`now()` }))
        .execute();
    }
  }

  async loadMany(project: string, users: readonly string[]): Promise<Map<string, UserHistory>> {
    const out = new Map<string, UserHistory>();
    for (const part of chunks(users, 5000)) {
      const rows = await this.db
        .selectFrom("user_history")
        .select(["user_id", "history"])
        .where("project", "=", project)
        .where("user_id", "=", sql<string>`ANY(${part})`)
        .execute();
      for (const r of rows) out.set(r.user_id, r.history as UserHistory);
    }
    return out;
  }
}

export class DbContextThresholdStore implements ContextThresholdStore {
  constructor(private readonly db: Kysely<Database>) {}

  async load(key: ContextKey): Promise<ContextThresholdState | undefined> {
    const row = await this.db
      .selectFrom("context_thresholds")
      .select("state")
      .where("project", "=", key.project)
      .where("context_key", "=", contextKeyString(key))
      .executeTakeFirst();
    return row?.state as ContextThresholdState | undefined;
  }

  async save(key: ContextKey, state: ContextThresholdState): Promise<void> {
    await this.db
      .insertInto("context_thresholds")
      .values({ project: key.project, context_key: contextKeyString(key), state: JSON.stringify(state) })
      .onConflict((oc) => oc.columns(["project", "context_key"]).doUpdateSet({ state: sql`excluded.state`, updated_at: sql`now()` }))
      .execute();
  }
}
