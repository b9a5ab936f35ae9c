/**
 * The one error family of `algorithms/dag/`: misuse (bad node ids, duplicates, cyclic input where a DAG
 * is required, bad latencies) throws a DagError with a string `code` and a message naming the module
 * and the offending value. A missing answer (no relation, no latency) is an empty value with a reason.
 */
import { AlgorithmError } from "../errors.ts";

export class DagError extends AlgorithmError {
  constructor(module: string, code: string, message: string) {
    super(module, code, message);
    this.name = "DagError";
  }
}
