/**
 * The one error family of `algorithms/evaluation/`: misuse (bad k, empty gold set, malformed edges)
 * throws an `EvaluationError` with a string `code` and a message naming the module and the value.
 */

export class EvaluationError extends Error {
  readonly code: string;
  constructor(module: string, code: string, message: string) {
    super(`evaluation/${module}: ${message}`);
    this.code = code;
    this.name = "EvaluationError";
  }
}
