/**
 * The one error family of the thresholds module: misuse (a threshold outside [0,1], a negative step, a
 * score that is not a number) throws a ThresholdError with a string `code`; a missing answer is never an
 * exception.
 */
import { AlgorithmError } from "../errors.ts";

export class ThresholdError extends AlgorithmError {
  constructor(module: string, code: string, message: string) {
    super(module, code, message);
    this.name = "ThresholdError";
  }
}

/** Throws unless `x` is a finite number in [lo, hi]; `what` names the offending value. */
export function assertInRange(module: string, what: string, x: number, lo: number, hi: number): void {
  if (!Number.isFinite(x) || x < lo || x > hi) {
    throw new ThresholdError(module, "out-of-range", `${what} must be a finite number in [${lo}, ${hi}], got ${x}`);
  }
}
