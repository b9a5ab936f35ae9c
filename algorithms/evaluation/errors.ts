/**
 * The one error family of `algorithms/evaluation/`: misuse (bad k, empty gold set, malformed edges)
 * throws an `EvaluationError` with a string `code` and a message naming the module and the value.
 */
import { AlgorithmError } from "../errors.ts";

export class EvaluationError extends AlgorithmError {
  constructor(module: string, code: string, message: string) {
    super(`evaluation/${module}`, code, message);
    this.name = "EvaluationError";
  }
}
