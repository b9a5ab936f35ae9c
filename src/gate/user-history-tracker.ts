/**
 * UserHistoryTracker (the gate's feedback loop, docs/decisions/gate-thresholds.md): records task outcomes per project
 * and user through a narrow persistence seam (`UserHistoryStore`, implemented by the store layer on the database) and
 * serves the user context the gate reads, from a cache.
 *
 * Cache: per (project, user), holding the history and its derived context; an entry is replaced when this
 * tracker records an outcome for that user (invalidation on history change) and reloaded after `cacheTtlMs`
 * (other server processes write through the same database). Writes for one user are serialised in this process
 * and always re-read the stored history first; two processes writing the same user at the same instant can
 * still lose one update unless the store's save is atomic (a database-side merge is the lead's choice).
 */

import { ThresholdError } from "../../algorithms/thresholds/errors.ts";
import type { UserContext } from "../../algorithms/thresholds/types.ts";
import {
  emptyUserHistory,
  type TaskOutcome,
  type UserHistory,
  type UserHistoryOptions,
  updateUserHistory,
  userContextOf,
} from "../../algorithms/thresholds/user-history.ts";
import type { UserHistoryStore } from "../store/ports.ts";

const MODULE = "gate/user-history-tracker";

/** Persistence seam (declared with the store, src/store/ports.ts). */
export type { UserHistoryStore };

export interface UserHistoryTrackerOptions extends UserHistoryOptions {
  /** Clock in epoch ms. Default Date.now. */
  readonly now?: () => number;
  /** A cached context older than this is reloaded from the store. Default 60_000 ms. */
  readonly cacheTtlMs?: number;
  /** Most cached users; the oldest entry is dropped beyond it. Default 10_000. */
  readonly maxCacheEntries?: number;
}

export const DEFAULTS = { cacheTtlMs: 60_000, maxCacheEntries: 10_000 } as const;

/** An outcome to record; `at` defaults to the tracker's clock. */
export type TrackedOutcome = Omit<TaskOutcome, "at"> & { readonly at?: number | undefined };

interface Entry {
  readonly history: UserHistory;
  readonly context: UserContext;
  readonly loadedAt: number;
}

const keyOf = (project: string, user: string): string => `${project}\u001f${user}`;

export class UserHistoryTracker {
  readonly #store: UserHistoryStore;
  readonly #options: UserHistoryOptions;
  readonly #now: () => number;
  readonly #ttl: number;
  readonly #max: number;
  readonly #cache = new Map<string, Entry>();
  readonly #writes = new Map<string, Promise<unknown>>();
  /** Bumped by every recorded outcome, so a read that raced a write does not cache the older history. */
  readonly #versions = new Map<string, number>();

  constructor(store: UserHistoryStore, options?: UserHistoryTrackerOptions) {
    this.#store = store;
    this.#now = options?.now ?? Date.now;
    this.#ttl = options?.cacheTtlMs ?? DEFAULTS.cacheTtlMs;
    this.#max = options?.maxCacheEntries ?? DEFAULTS.maxCacheEntries;
    if (!Number.isInteger(this.#max) || this.#max < 1) {
      throw new ThresholdError(
        MODULE,
        "bad-cache-size",
        `maxCacheEntries must be a positive integer, got ${this.#max}`,
      );
    }
    this.#options = {
      recentWindow: options?.recentWindow,
      recentWeight: options?.recentWeight,
      inactiveAfterMs: options?.inactiveAfterMs,
    };
  }

  /** The user's context (cached; loads from the store on a miss or after the TTL). A new user gets an empty history. */
  async getUserContext(project: string, user: string): Promise<UserContext> {
    return (await this.#entry(project, user)).context;
  }

  /** The user's history (same cache as getUserContext). */
  async getHistory(project: string, user: string): Promise<UserHistory> {
    return (await this.#entry(project, user)).history;
  }

  /** The cached context without I/O, or undefined when not loaded or expired. */
  peekUserContext(project: string, user: string): UserContext | undefined {
    const e = this.#cache.get(keyOf(project, user));
    return e !== undefined && this.#fresh(e) ? e.context : undefined;
  }

  /** Records one outcome: re-reads the stored history, updates it, saves it, and replaces the cache entry. */
  async trackTaskCompletion(project: string, user: string, outcome: TrackedOutcome): Promise<UserContext> {
    const key = keyOf(project, user);
    const previous = this.#writes.get(key) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        const stored = (await this.#store.load(project, user)) ?? emptyUserHistory();
        const at = outcome.at ?? this.#now();
        const next = updateUserHistory(stored, { ...outcome, at }, this.#options);
        await this.#store.save(project, user, next);
        this.#versions.set(key, (this.#versions.get(key) ?? 0) + 1);
        return this.#put(key, next);
      });
    this.#writes.set(key, run);
    try {
      return (await run).context;
    } finally {
      if (this.#writes.get(key) === run) this.#writes.delete(key);
    }
  }

  /** Drops the cached entry so the next read goes to the store. */
  invalidate(project: string, user: string): void {
    this.#cache.delete(keyOf(project, user));
  }

  #fresh(e: Entry): boolean {
    const age = this.#now() - e.loadedAt;
    return age >= 0 && age < this.#ttl;
  }

  async #entry(project: string, user: string): Promise<Entry> {
    const key = keyOf(project, user);
    const cached = this.#cache.get(key);
    if (cached !== undefined && this.#fresh(cached)) return cached;
    const version = this.#versions.get(key) ?? 0;
    const history = (await this.#store.load(project, user)) ?? emptyUserHistory();
    if ((this.#versions.get(key) ?? 0) !== version) {
      const newer = this.#cache.get(key);
      if (newer !== undefined) return newer;
    }
    return this.#put(key, history);
  }

  #put(key: string, history: UserHistory): Entry {
    const now = this.#now();
    const entry: Entry = { history, context: userContextOf(history, now, this.#options), loadedAt: now };
    this.#cache.delete(key);
    this.#cache.set(key, entry);
    if (this.#cache.size > this.#max) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    return entry;
  }
}
