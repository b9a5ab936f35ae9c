/** Database implementations of the gate's persistence seams (user history, learned context thresholds). */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { ContextKey, ContextThresholdState } from "../../algorithms/thresholds/context-learning.ts";
import type { UserHistory } from "../../algorithms/thresholds/user-history.ts";
import { chunks } from "./catalog.ts";
import type { ContextThresholdStore, UserHistoryStore } from "./ports.ts";
import type { Database } from "./schema.ts";

export class DbUserHistoryStore implements UserHistoryStore {
  constructor(private readonly db: Kysely<Database>) {}

  async load(project: string, user: string): Promise<UserHistory | undefined> {
    const row = await this.db
      .selectFrom("user_history")
      .select("history")
      .where("project", "=", project)
      .where("user_id", "=", user)
      .executeTakeFirst();
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
        .onConflict((oc) =>
          oc.columns(["project", "user_id"]).doUpdateSet({ history: sql`excluded.history`, updated_at: sql`now()` }),
        )
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

  /**
   * Locks the users' history rows until the transaction ends (creating absent ones as `placeholder`, an
   * empty history, so new users are locked too), in user order, and returns each one's latest history.
   * Pair with `saveMany` for users that got executions and `dropPlaceholders` for the others.
   */
  async lockMany(
    project: string,
    users: readonly string[],
    placeholder: UserHistory,
  ): Promise<Map<string, UserHistory>> {
    const rows = await sql<{ user_id: string; history: UserHistory }>`
      INSERT INTO user_history (project, user_id, history)
      SELECT ${project}, u, ${JSON.stringify(placeholder)}::jsonb FROM unnest(${[...users].sort()}::text[]) AS u ORDER BY u
      ON CONFLICT (project, user_id) DO UPDATE SET history = user_history.history
      RETURNING user_id, history`.execute(this.db);
    return new Map(rows.rows.map((r) => [r.user_id, r.history]));
  }

  /** Removes the users' rows still equal to `placeholder` (created by `lockMany`, never written). */
  async dropPlaceholders(project: string, users: readonly string[], placeholder: UserHistory): Promise<void> {
    if (users.length === 0) return;
    await sql`DELETE FROM user_history WHERE project = ${project} AND user_id = ANY(${[...users]}::text[]) AND history = ${JSON.stringify(placeholder)}::jsonb`.execute(
      this.db,
    );
  }
}

/**
 * The body of a data-modifying CTE that locks the user's history row until the transaction ends and
 * returns its latest committed `history` — creating it as `placeholder` (an empty history) when absent,
 * so a new user is locked too and concurrent recorders of one user queue on this row before writing
 * anything else. Nothing happens when `gate` is false.
 */
export function lockUserHistoryCte(
  project: string,
  user: string,
  placeholder: UserHistory,
  gate: RawBuilder<unknown>,
): RawBuilder<{ history: UserHistory }> {
  return sql`
    INSERT INTO user_history (project, user_id, history)
    SELECT ${project}, ${user}, ${JSON.stringify(placeholder)}::jsonb WHERE ${gate}
    ON CONFLICT (project, user_id) DO UPDATE SET history = user_history.history
    RETURNING history`;
}

/**
 * The write-back after `lockUserHistoryCte`, as two CTE bodies: when `inserted`, the new `history`;
 * otherwise the placeholder row this transaction created (still equal to it) is removed again.
 */
export function writeUserHistoryCtes(
  project: string,
  user: string,
  history: UserHistory,
  placeholder: UserHistory,
  inserted: RawBuilder<unknown>,
): { write: RawBuilder<unknown>; dropPlaceholder: RawBuilder<unknown> } {
  return {
    write: sql`
      UPDATE user_history SET history = ${JSON.stringify(history)}::jsonb, updated_at = now()
      WHERE project = ${project} AND user_id = ${user} AND ${inserted}
      RETURNING 1`,
    dropPlaceholder: sql`
      DELETE FROM user_history
      WHERE project = ${project} AND user_id = ${user} AND history = ${JSON.stringify(placeholder)}::jsonb AND NOT ${inserted}
      RETURNING 1`,
  };
}

export class DbContextThresholdStore implements ContextThresholdStore {
  /** `keyString` serialises a context key (algorithms/thresholds/context-learning.ts contextKeyString). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly keyString: (key: ContextKey) => string,
  ) {}

  async load(key: ContextKey): Promise<ContextThresholdState | undefined> {
    const row = await this.db
      .selectFrom("context_thresholds")
      .select("state")
      .where("project", "=", key.project)
      .where("context_key", "=", this.keyString(key))
      .executeTakeFirst();
    return row?.state as ContextThresholdState | undefined;
  }

  async save(key: ContextKey, state: ContextThresholdState): Promise<void> {
    await this.db
      .insertInto("context_thresholds")
      .values({ project: key.project, context_key: this.keyString(key), state: JSON.stringify(state) })
      .onConflict((oc) =>
        oc.columns(["project", "context_key"]).doUpdateSet({ state: sql`excluded.state`, updated_at: sql`now()` }),
      )
      .execute();
  }
}
