/**
 * The one error family of `algorithms/prediction/`: thrown on misuse (bad ids, arrays of the wrong
 * length, negative weights). A missing answer (no context, no candidate) is an empty result with a
 * reason, never this error.
 */
import { AlgorithmError } from "../errors.ts";
export class PredictionError extends AlgorithmError {
  constructor(module: string, code: string, message: string) {
    super(module, code, message);
    this.name = "PredictionError";
  }
}
