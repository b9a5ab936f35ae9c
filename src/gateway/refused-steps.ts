/**
 * Steps the catalog cannot take out of a recorded execution, so one odd tool never voids the others' record:
 * the steps whose tool is not usable are dropped, and the dependencies that pointed at them with them (the
 * remaining indices are renumbered). An execution keeps its own success (its last call's outcome, dropped or not).
 */
import { idProblem, LIMITS } from "../formats/schemas.ts";
import type { RecordedExecution } from "./recorded-execution.ts";

/** True when the catalog can hold `tool` as an id: length, no surrounding white space, no forbidden characters. */
export function catalogCanHold(tool: string): boolean {
  return tool.length >= 1 && tool.length <= LIMITS.idLength && tool.trim() === tool && idProblem(tool) === undefined;
}

/** The execution without its unusable steps; undefined when no step is left. The input is not changed. */
export function withoutRefusedSteps(
  execution: RecordedExecution,
  usable: (tool: string) => boolean,
): RecordedExecution | undefined {
  const keep = execution.steps.map((s) => usable(s.tool));
  if (keep.every(Boolean)) return execution;
  const newIndex: number[] = [];
  let n = 0;
  for (const k of keep) newIndex.push(k ? n++ : -1);
  if (n === 0) return undefined;
  const steps = execution.steps
    .filter((_, i) => keep[i])
    .map((s) => ({ ...s, dependsOn: s.dependsOn.map((d) => newIndex[d]!).filter((d) => d >= 0) }));
  return { ...execution, steps };
}
