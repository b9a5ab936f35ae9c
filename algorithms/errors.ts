/**
 * The one error family of `algorithms/`: misuse (bad sizes, out-of-range values, invalid options) throws an
 * `AlgorithmError` (or a subclass named after its folder) carrying the module that threw, a stable string
 * `code`, and a message that starts with the module and names the offending value. A missing answer (no
 * path, no hit) is an empty value with a reason, never an exception. The front doors map the family once
 * (src/contract/error-mapping.ts).
 */
export class AlgorithmError extends Error {
  /** The module that threw, e.g. "pagerank", "thresholds/adjust-threshold". */
  readonly module: string;
  /** Stable machine-readable code, e.g. "bad-option", "bad-length". */
  readonly code: string;
  constructor(module: string, code: string, message: string) {
    super(`${module}: ${message}`);
    this.module = module;
    this.code = code;
    this.name = "AlgorithmError";
  }
}
