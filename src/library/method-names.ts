/**
 * The names of the library's own methods (runtime.ts's method tables), known without loading the tables:
 * toolgraph.ts binds each name onto Toolgraph.prototype when it loads, and the bound method calls the table's
 * method, which the open loads (an instance exists only after an open). The type check below fails to compile
 * when a table gains a method that is not named here; a name no table has fails `satisfies`.
 */
import type { LIBRARY_METHODS } from "./runtime.ts";

type Name = keyof typeof LIBRARY_METHODS;

export const LIBRARY_METHOD_NAMES = [
  // writes.ts
  "importCatalog",
  "syncServerTools",
  "retireUnavailableTools",
  "importEdges",
  // recording.ts
  "importTraces",
  "recordExecution",
  // learning.ts, measuring.ts
  "calibrate",
  "fitNextStepWeights",
  "fitSearchWeights",
  "setSearchWeights",
  "recall",
  "searchModel",
  "routingModel",
  "nextStepModel",
  "dagModel",
  "executionSequences",
  "calibrationPairs",
  "gateDecision",
  "memoryStats",
  "memoryNeighbours",
  // status.ts
  "stats",
  "database",
  "embedding",
  "cacheStats",
  "analyticsStatus",
  "onRefit",
  "graph",
  "ping",
  // readiness.ts
  "settle",
  "prepareSearch",
  "warmUp",
  "staged",
  "answerWhileEmbedding",
] as const satisfies readonly Name[];

/** Compiles only when every method of the tables is named above. */
export const EVERY_METHOD_NAMED: [Exclude<Name, (typeof LIBRARY_METHOD_NAMES)[number]>] extends [never] ? true : never =
  true;
