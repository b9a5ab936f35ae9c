/**
 * The one error family of `algorithms/memory/`: thrown on misuse (similarity outside [0, 1],
 * non-finite timestamps, non-positive half-life). A missing answer (no neighbours) is an empty result
 * with a reason, never this error.
 */
import { AlgorithmError } from "../errors.ts";
export class MemoryError extends AlgorithmError {
  constructor(module: string, code: string, message: string) {
    super(module, code, message);
    this.name = "MemoryError";
  }
}
