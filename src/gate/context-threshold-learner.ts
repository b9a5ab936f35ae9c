/**
 * Per-context threshold learning (beyond the fixed rule table; see algorithms/thresholds/context-learning.ts for the
 * update rule): loads and saves the learned offset of each context (project × operation × domain) through a
 * narrow seam (`ContextThresholdStore`, implemented by the store layer on the database) and keeps the loaded
 * offsets in memory so the synchronous gate can read them with `peek`. Call `warm(key)` (or
 * `AdaptiveThresholdManager.warm(task)`) before gating a context the process has not seen. Entries reload
 * after `cacheTtlMs`, since other processes learn through the same database.
 */

import {
  type ContextKey,
  type ContextLearningOptions,
  type ContextThresholdState,
  contextKeyString,
  emptyContextThreshold,
  type GateOutcome,
  updateContextThreshold,
} from "../../algorithms/thresholds/context-learning.ts";
import type { ContextThresholdStore } from "../store/ports.ts";

/** Persistence seam (declared with the store, src/store/ports.ts). */
export type { ContextThresholdStore };

export interface ContextThresholdLearnerOptions extends ContextLearningOptions {
  /** Clock in ms. Default Date.now. */
  readonly now?: () => number;
  /** A loaded offset older than this is reloaded by `warm`. Default 60_000 ms. */
  readonly cacheTtlMs?: number;
}

export const DEFAULTS = { cacheTtlMs: 60_000 } as const;

export class ContextThresholdLearner {
  readonly #store: ContextThresholdStore;
  readonly #learning: ContextLearningOptions;
  readonly #now: () => number;
  readonly #ttl: number;
  readonly #cache = new Map<string, { readonly state: ContextThresholdState; readonly loadedAt: number }>();
  readonly #writes = new Map<string, Promise<unknown>>();
  #version = 0;

  constructor(store: ContextThresholdStore, options?: ContextThresholdLearnerOptions) {
    this.#store = store;
    this.#now = options?.now ?? Date.now;
    this.#ttl = options?.cacheTtlMs ?? DEFAULTS.cacheTtlMs;
    this.#learning = { step: options?.step, base: options?.base, floor: options?.floor, ceiling: options?.ceiling };
  }

  /** Loads the context's state (unless cached and fresh) and returns its offset. */
  async warm(key: ContextKey): Promise<number> {
    const k = contextKeyString(key);
    const cached = this.#cache.get(k);
    if (cached !== undefined && this.#now() - cached.loadedAt < this.#ttl) return cached.state.offset;
    const state = (await this.#store.load(key)) ?? emptyContextThreshold();
    this.#cache.set(k, { state, loadedAt: this.#now() });
    this.#version++;
    return state.offset;
  }

  /**
   * Counts the changes of what `peek` can answer (a load, a reload, a learned step): a caller that derived
   * something from loaded offsets may keep it while this count is unchanged and the offsets are fresh.
   */
  get version(): number {
    return this.#version;
  }

  /** Until when (clock ms) the context's loaded offset stays fresh; -Infinity when it is not loaded. */
  freshUntil(key: ContextKey): number {
    const cached = this.#cache.get(contextKeyString(key));
    return cached === undefined ? Number.NEGATIVE_INFINITY : cached.loadedAt + this.#ttl;
  }

  /** The loaded offset without I/O; 0 for a context not loaded yet. */
  peek(key: ContextKey): number {
    return this.#cache.get(contextKeyString(key))?.state.offset ?? 0;
  }

  /** Applies one gate outcome: re-reads the stored state, updates it by one bounded step, saves it. */
  async recordOutcome(key: ContextKey, outcome: GateOutcome): Promise<ContextThresholdState> {
    const k = contextKeyString(key);
    const previous = this.#writes.get(k) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        const stored = (await this.#store.load(key)) ?? emptyContextThreshold();
        const next = updateContextThreshold(stored, outcome, this.#learning);
        await this.#store.save(key, next);
        this.#cache.set(k, { state: next, loadedAt: this.#now() });
        this.#version++;
        return next;
      });
    this.#writes.set(k, run);
    try {
      return await run;
    } finally {
      if (this.#writes.get(k) === run) this.#writes.delete(k);
    }
  }
}
