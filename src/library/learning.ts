/**
 * The facade's learning: the fits of the gate's calibration and of the next-step and search weights on the
 * project's own traces, pinning the search weights, and the library-only reads the benches measure with (measuring.ts):
 * docs/decisions/layout.md. A fit that stores weights clears
 * the result cache (answers cached before it ranked with the old ones).
 */
import type { Scoped } from "../contract/api.ts";
import { calibrateProject } from "../jobs/fit-calibration.ts";
import { fitSearchWeights, type SearchFitOptions } from "../jobs/fit-search-weights.ts";
import { fitNextStepWeights } from "../jobs/next.ts";
import type { SearchWeights } from "../jobs/search-weights.ts";
import { setSearchWeights } from "../jobs/set-search-weights.ts";
import { type Facade, type ProjectScoped, projectOf } from "./facade.ts";
import { MEASURING } from "./measuring.ts";

export const LEARNING = {
  /**
   * Fit the gate's calibration (score → P(success)) on the project's own traces and store it; `reuse: false`
   * scores every sampled execution again instead of reusing this engine's fresh pairs (calibration-pairs.ts).
   */
  async calibrate(
    f: Facade,
    opts: Scoped & { maxExecutions?: number; split?: "cross-fit" | "time"; reuse?: boolean } = {},
  ) {
    return calibrateProject(await f.engine.view(projectOf(f, opts)), opts);
  },

  /** Fit the next-step weights on the project's own traces (the `learned` mode) and store them. */
  async fitNextStepWeights(f: Facade, opts: Scoped & { maxExecutions?: number; seed?: number; dryRun?: boolean } = {}) {
    const r = await fitNextStepWeights(await f.engine.view(projectOf(f, opts)), opts);
    if (!opts.dryRun) f.results.clear();
    return r;
  },

  /**
   * Fit the search weights (fusion β, memory μ, content, graph) on the project's own past intents; they replace
   * the defaults only when they beat them on grouped held-out intents (search-weights.ts). `dryRun` stores nothing.
   */
  async fitSearchWeights(f: Facade, opts: Scoped & SearchFitOptions = {}) {
    const r = await fitSearchWeights(await f.engine.view(projectOf(f, opts)), opts);
    if (!opts.dryRun) f.results.clear();
    return r;
  },

  /** Pins the project's search weights (those not given stay as in force) until a fit replaces them. Library-only. */
  async setSearchWeights(f: Facade, weights: Partial<SearchWeights>, opts: ProjectScoped = {}): Promise<SearchWeights> {
    const w = await setSearchWeights(await f.engine.view(projectOf(f, opts)), weights);
    f.results.clear();
    return w;
  },

  ...MEASURING,
};
