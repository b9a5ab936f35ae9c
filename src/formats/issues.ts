/**
 * The one formatter of zod issues, used by every door and every importer: a field path written
 * `steps[0].tool` (never `steps.0.tool`), "required" for an absent field, and an unrecognised key named
 * by the key itself. src/contract/error-mapping.ts maps the errors built from it to HTTP, CLI and MCP.
 */
import type { z } from "zod";

export interface FieldProblem {
  /** The offending field (`intent`, `context[2]`, `steps[0].tool`); "" for the whole input. */
  field: string;
  message: string;
}

/** `a.b[0].c` from a zod path. */
export function fieldOf(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

/** True when the issue only says that the field is absent (every union branch received undefined). */
function isMissing(issue: z.core.$ZodIssue): boolean {
  if (issue.code === "invalid_type") return / received undefined$/.test(issue.message);
  if (issue.code === "invalid_union") {
    return (
      issue.errors.length > 0 &&
      issue.errors.every((branch) => branch.length > 0 && branch.every((b) => b.path.length === 0 && isMissing(b)))
    );
  }
  return false;
}

/** One problem per zod issue, its field prefixed by `prefix` (`executions[3]`) when given. */
export function zodProblems(issues: readonly z.core.$ZodIssue[], prefix = ""): FieldProblem[] {
  return issues.map((issue) => {
    let path: PropertyKey[] = [...issue.path];
    let message = isMissing(issue) ? "required" : issue.message;
    if (issue.code === "unrecognized_keys" && issue.keys.length > 0) {
      path = [...path, issue.keys[0]!];
      message = `unknown field${issue.keys.length > 1 ? `s ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}` : ""} (not part of this request)`;
    }
    const f = fieldOf(path);
    return { field: prefix && f ? (f.startsWith("[") ? `${prefix}${f}` : `${prefix}.${f}`) : prefix || f, message };
  });
}

/** "field: problem (and N more)" for a list of problems. */
export function problemsMessage(problems: readonly FieldProblem[]): string {
  const first = problems[0] ?? { field: "", message: "invalid input" };
  return `${first.field ? `${first.field}: ` : ""}${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ""}`;
}
