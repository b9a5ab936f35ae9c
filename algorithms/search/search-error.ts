/**
 * The one error family of `algorithms/search/`: misuse (bad sizes, out-of-range ids, unsafe patterns) throws
 * a `SearchError` whose `code` is a stable string and whose message names the module and the offending value.
 * A missing answer (no hit, no context) is an empty value, never an exception.
 */
import { AlgorithmError } from "../errors.ts";

export class SearchError extends AlgorithmError {
  constructor(module: string, code: string, message: string) {
    super(module, code, message);
    this.name = "SearchError";
  }
}
