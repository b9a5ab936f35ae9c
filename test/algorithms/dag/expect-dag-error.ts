/** Shared assertion of the dag tests: `fn` throws a DagError with `code` whose message names `module`. */
import { expect } from "vitest";
import { DagError } from "../../../algorithms/dag/dag-error.ts";

export function expectDagErrorOf(module: string): (fn: () => unknown, code: string) => void {
  return (fn, code) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(DagError);
      expect((err as DagError).code).toBe(code);
      expect((err as Error).message).toContain(module);
      return;
    }
    throw new Error(`expected DagError ${code}`);
  };
}
