/**
 * Warming at start (`toolgraph mcp`, `serve`, `gateway`): loads the embedding model and builds the
 * project's read model (snapshot, search index with the tool embeddings, analytics) by answering one
 * search, so the first real request does not pay seconds for it. It runs in the background: the servers
 * answer meanwhile (the first requests then wait for the same work), and readiness reports `warm`.
 */
import type { Toolgraph } from "../api/toolgraph.ts";

export interface Warmth {
  /** True once the model and the read model are loaded (or there was nothing to load). */
  readonly warm: boolean;
  /** How long warming took (ms), once done. */
  readonly ms: number | undefined;
  /** Why warming stopped early (e.g. the project has no tools yet), if it did. */
  readonly note: string | undefined;
  /** Settles when warming is done (never rejects). */
  readonly done: Promise<void>;
}

export function warmUp(api: Toolgraph, project: string = api.project): Warmth {
  const state: { warm: boolean; ms: number | undefined; note: string | undefined } = { warm: false, ms: undefined, note: undefined };
  const t0 = performance.now();
  const done = (async () => {
    try {
      await api.engine.queryEmbedder.embed(["warm up"]);
      const s = await api.engine.snapshot(project);
      if (s.n === 0) {
        state.note = "the project has no tools yet";
        return;
      }
      await api.search({ intent: "warm up the search index", limit: 1, project });
    } catch (err) {
      state.note = (err as Error)?.message ?? String(err);
    } finally {
      state.warm = true;
      state.ms = performance.now() - t0;
    }
  })();
  return {
    get warm() {
      return state.warm;
    },
    get ms() {
      return state.ms;
    },
    get note() {
      return state.note;
    },
    done,
  };
}
