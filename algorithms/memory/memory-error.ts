/**
 * The one error family of `algorithms/memory/`: thrown on misuse (similarity outside [0, 1],
 * non-finite timestamps, non-positive half-life). A missing answer (no neighbours) is an empty result
 * with a reason, never this error.
 */
export class MemoryError extends Error {
  /** Stable machine-readable code, e.g. "bad-similarity", "bad-half-life". */
  readonly code: string;
  constructor(module: string, code: string, message: string) {
    super(`${module}: ${message}`);
    this.code = code;
    this.name = "MemoryError";
  }
}
