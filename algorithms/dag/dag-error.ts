/**
 * The one error family of `algorithms/dag/`: misuse (bad node ids, duplicates, cyclic input where a DAG
 * is required, bad latencies) throws a DagError with a string `code` and a message naming the module
 * and the offending value. A missing answer (no relation, no latency) is an empty value with a reason.
 */

export class DagError extends Error {
  readonly code: string;
  readonly module: string;
  constructor(module: string, code: string, message: string) {
    super(`${module}: ${message}`);
    this.code = code;
    this.module = module;
    this.name = "DagError";
  }
}
