/**
 * The facade's readiness: waiting for the read model to reflect the writes (`settle`), building the search
 * index now (`prepareSearch`), a server's warm-up steps (`warmUp`), catalog writes readied before they are
 * published (`staged`) and how searches answer while a new catalog's embeddings are computed
 * (`answerWhileEmbedding`). Requests never wait for these.
 */
import { OPERATION_LIST } from "../contract/operations.ts";
import { parseInput } from "../formats/parse.ts";
import { settledMemory } from "../view/intent-memory.ts";
import { type Facade, type ProjectScoped, projectOf } from "./facade.ts";

export const READINESS = {
  /**
   * Waits until the project's read model reflects every write so far: the graph analytics recomputed and the
   * intent memory rebuilt. Requests never wait for this (they answer from the previous analytics and memory
   * while the refresh runs in the background); call it when the next answers must see the writes (a replay,
   * a bench, a test).
   */
  async settle(f: Facade, opts: ProjectScoped = {}): Promise<void> {
    const project = projectOf(f, opts);
    await f.engine.analyticsCache.fresh(await f.engine.snapshot(project));
    await settledMemory(f.engine, project);
    // Answers cached at this graph version were computed from the previous memory: they go.
    f.results.clear();
  },

  /**
   * Builds the project's search index now, embedding the tool texts not embedded yet (an interrupted import),
   * with `onProgress(done, total)`; nothing on a project without tools.
   */
  async prepareSearch(
    f: Facade,
    opts: ProjectScoped & { onProgress?: ((done: number, total: number) => void) | undefined } = {},
  ): Promise<void> {
    const view = await f.engine.view(projectOf(f, opts));
    if (view.snapshot.n === 0) return;
    await view.searchIndex(opts.onProgress);
  },

  /**
   * One warm-up step of a server's readiness: "model" loads the embedding model (one embedding), "index"
   * builds the project's search index, "analytics" runs the graph analytics (in their worker). "search" readies what a search
   * answers from now, so that the first one after a catalog change does not build it: the analytics of the new
   * graph (in their worker), the intent memory, the serving index (the lexical one while the embeddings are
   * computed) and the ranking's derived state — by ranking one fixed intent, logged nowhere.
   */
  async warmUp(f: Facade, step: "model" | "index" | "analytics" | "search", opts: ProjectScoped = {}): Promise<void> {
    const { engine } = f;
    const project = projectOf(f, opts);
    if (step === "model") await engine.embedder.embed(["warm-up"]);
    else if (step === "index") await engine.searchIndex(project);
    // In their worker: a graph of a new shape would otherwise be computed on the event loop (analytics.ts).
    else if (step === "analytics") await engine.analyticsCache.fresh(await engine.snapshot(project));
    else {
      const view = await engine.view(project);
      // Even on an empty catalog: this starts the analytics worker (a gateway readies it while its upstreams
      // connect, so that the analytics of their first list do not wait for the worker to load).
      await engine.analyticsCache.fresh(view.snapshot);
      if (view.snapshot.n === 0) return;
      await settledMemory(engine, project);
      const { rankSearch } = await import("../jobs/search.ts");
      const job = await OPERATION_LIST.find((o) => o.name === "search")!.load();
      await rankSearch(view, parseInput(job.request, { intent: "warm up the search", limit: 1 }) as never);
    }
  },

  /**
   * Runs `write` — a catalog write (`syncServerTools`, …) and what readies the next answers (`warmUp("search")`)
   * — so that answers never wait for it: reads issued meanwhile elsewhere are answered at once from the version
   * published when it began, those of `write` see the new one, and the new one is published when `write` ends
   * (Engine.staged). Writes are not queued here: the caller runs them one at a time (the gateway's sync queue).
   */
  staged(f: Facade, write: () => Promise<void>, opts: ProjectScoped = {}): Promise<void> {
    return f.engine.staged(projectOf(f, opts), write);
  },

  /**
   * While a new catalog's embeddings are computed, searches answer from a lexical index ("lexical": the
   * gateway) or wait for them ("wait", the default): docs/decisions/lexical-while-embedding.md.
   */
  answerWhileEmbedding(f: Facade, mode: "wait" | "lexical"): void {
    f.engine.whileEmbedding = mode;
    // Answering at once: a project's first read does not compute its analytics on the event loop either.
    f.engine.analyticsCache.answerBeforeFirst = mode === "lexical";
  },
};
