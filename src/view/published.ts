/**
 * What reads are served while a staged write readies the next version of a project (Engine.staged): the write
 * runs in an asynchronous scope of its own (AsyncLocalStorage) whose reads see the new version and fill the
 * engine's per-project slots, while every other read is served from the version published when the write
 * began — its snapshot, view, analytics and indexes, pinned then and held only here. When the last staged write
 * of the project ends (or fails) the pin goes, in one assignment: from then on every read sees the new version.
 * docs/decisions/gateway-first-answer.md ("Searches served from the published view during a sync").
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { AnalyticsView } from "./analytics.ts";
import type { GraphSnapshot } from "./graph-snapshot.ts";
import type { ProjectView } from "./project-view.ts";
import type { SearchIndex } from "./search-index.ts";

/** The published version of a project while a staged write runs. */
export interface Published {
  snapshot: GraphSnapshot;
  view: ProjectView;
  /** Its analytics as held when the write began (undefined: none of its shape were). */
  analytics: AnalyticsView | undefined;
  /** The index searches answered from (the full one, or the lexical one while embeddings were computed). */
  serving: Promise<SearchIndex> | undefined;
  /** The full index (embeddings in), held or in its build when the write began. */
  full: Promise<SearchIndex> | undefined;
}

/** One engine's pins (never module state: each engine has its own). */
export class PublishedVersions {
  readonly #pins = new Map<string, Published & { writes: number }>();
  /** The projects whose staged writes the current asynchronous context belongs to. */
  readonly #scope = new AsyncLocalStorage<ReadonlySet<string>>();

  /** The pin a read of `project` is served from, or undefined (no staged write, or a read of the write itself). */
  pinned(project: string): Published | undefined {
    const pin = this.#pins.get(project);
    return pin && !this.#scope.getStore()?.has(project) ? pin : undefined;
  }

  /**
   * Runs `write` in the project's staging scope, `pin()` (the published version) pinned first unless a staged
   * write of the project already runs (they share its pin; a nested one runs as it is).
   */
  async staged<T>(project: string, pin: () => Promise<Published>, write: () => Promise<T>): Promise<T> {
    const scope = this.#scope.getStore();
    if (scope?.has(project)) return write();
    // Nothing to pin (the database unreachable, say): the write runs unstaged and reports its own failure (a
    // caller's retry depends on it), reads meanwhile go as they would without it.
    const made = this.#pins.has(project) ? undefined : await pin().catch(() => undefined);
    let held = this.#pins.get(project);
    if (!held) {
      if (!made) return write();
      held = { ...made, writes: 0 };
      this.#pins.set(project, held);
    }
    held.writes++;
    try {
      return await this.#scope.run(new Set([...(scope ?? []), project]), write);
    } finally {
      if (--held.writes === 0 && this.#pins.get(project) === held) this.#pins.delete(project);
      // On Node 20 a scope in use keeps async_hooks' promise hooks on (a cost on every promise): off between writes.
      if (this.#pins.size === 0) this.#scope.disable();
    }
  }
}

/**
 * An index of a pinned snapshot (catalog key `key`): the full one when its build is done (`built`, the
 * engine's last), else the one the pin holds for `which` if it is of that catalog (for "full", awaiting its
 * build; for "serving", the lexical index, never awaiting a full build), else one built for the pin alone
 * (`build`: the lexical index for "serving", the full one for "full"), never in the engine's slots, which hold
 * the next version's.
 */
export async function publishedIndex(
  pin: Published,
  which: "serving" | "full",
  key: string,
  built: SearchIndex | undefined,
  build: () => Promise<SearchIndex>,
): Promise<SearchIndex> {
  if (built?.key === key) return built;
  // "serving" never awaits a full build in flight (its embeddings may take minutes): the lexical index serves.
  const held = await pin[which]?.catch(() => undefined);
  if (held?.key === key) return held;
  const p = build();
  pin[which] = p;
  return p;
}
