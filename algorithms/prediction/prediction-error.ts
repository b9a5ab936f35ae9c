/**
 * The one error family of `algorithms/prediction/`: thrown on misuse (bad ids, arrays of the wrong
 * length, negative weights). A missing answer (no context, no candidate) is an empty result with a
 * reason, never this error.
 */
export class PredictionError extends Error {
  /** Stable machine-readable code, e.g. "bad-tool", "bad-weights", "bad-length". */
  readonly code: string;
  constructor(module: string, code: string, message: string) {
    super(`${module}: ${message}`);
    this.code = code;
    this.name = "PredictionError";
  }
}
