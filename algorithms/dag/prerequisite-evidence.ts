/**
 * Evidence that a prerequisite u of a planned tool v belongs in the plan of *this* intent
 * (docs/decisions/plan-evidence.md). A learned dependency edge u → v says that v read u's output in other
 * workflows; it enters a plan only with one of, checked in this order:
 *
 *   declared    the catalog or the user declared the dependency edge u → v (a fact about the tools)
 *   capability  the capability matched to the intent lists both u and v
 *   memory      u ran before v in at least one successful matched past request (a similar task: task
 *               similarity ≥ the similar-task floor), counted over those requests
 *
 * None → undefined: the prerequisite is left out. Pure; the caller passes the matched capability's tools and
 * the matched past requests' tool sequences.
 */

export type PrerequisiteEvidence =
  | { readonly kind: "declared" }
  | { readonly kind: "capability"; readonly capability: string }
  | { readonly kind: "memory"; readonly executions: number; readonly of: number };

export interface EvidenceSources<T> {
  /** Whether the edge u → v is declared (not only learned). */
  readonly declared: (u: T, v: T) => boolean;
  /** The capability matched to the intent, with its tools; undefined when none matched. */
  readonly capability?: { readonly id: string; readonly tools: ReadonlySet<T> } | undefined;
  /** The matched past requests' successful steps, each in execution order. */
  readonly past: readonly (readonly T[])[];
}

/** True when u occurs before some later occurrence of v in `steps`. */
export function ranBefore<T>(steps: readonly T[], u: T, v: T): boolean {
  const first = steps.indexOf(u);
  return first >= 0 && steps.lastIndexOf(v) > first;
}

export function prerequisiteEvidence<T>(u: T, v: T, sources: EvidenceSources<T>): PrerequisiteEvidence | undefined {
  if (sources.declared(u, v)) return { kind: "declared" };
  const cap = sources.capability;
  if (cap?.tools.has(u) && cap.tools.has(v)) return { kind: "capability", capability: cap.id };
  let n = 0;
  for (const steps of sources.past) if (ranBefore(steps, u, v)) n++;
  return n > 0 ? { kind: "memory", executions: n, of: sources.past.length } : undefined;
}

/** The evidence in words: "declared dependency edge", "both in the matched capability X", "ran before v in 3 of 5 matched past requests". */
export function describeEvidence(e: PrerequisiteEvidence, dependent: string): string {
  if (e.kind === "declared") return "declared dependency edge";
  if (e.kind === "capability") return `both in the matched capability ${e.capability}`;
  return `ran before ${dependent} in ${e.executions} of ${e.of} matched past request${e.of === 1 ? "" : "s"}`;
}
