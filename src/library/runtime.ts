/**
 * What an open Toolgraph runs on, loaded by `openToolgraph` (toolgraph.ts) with a dynamic import while the
 * embedded database starts on its own thread: the engine (database, embeddings, read models, analytics) and
 * the library's own methods (imports and recording, fits, stats and status, readiness). Importing the package
 * loads none of it; why: docs/decisions/everyday-budget.md.
 */
import { CATALOG_WRITES } from "./writes.ts";
import { EXECUTION_WRITES } from "./recording.ts";
import { LEARNING } from "./learning.ts";
import { READINESS } from "./readiness.ts";
import { STATUS } from "./status.ts";

export { Engine } from "../view/engine.ts";
export { cachedAnswer } from "./cached-answer.ts";

/** The library's own methods (not operations of the table), each `(facade, …args)`: bound as `tg.name(…args)`. */
export const LIBRARY_METHODS = { ...CATALOG_WRITES, ...EXECUTION_WRITES, ...LEARNING, ...STATUS, ...READINESS };
