/** Maps tool ids given by a caller to snapshot indices, with an error naming the field and the id. */
import { ToolgraphError } from "../contract/errors.ts";
import type { GraphSnapshot } from "./graph-snapshot.ts";

export function resolveTools(s: GraphSnapshot, ids: readonly string[] | undefined, field: string): number[] {
  if (!ids) return [];
  return ids.map((id, i) => {
    const k = s.index.get(id);
    if (k === undefined) {
      throw new ToolgraphError(
        "unknown-tool",
        `${field}[${i}]: unknown tool ${JSON.stringify(id)} in project ${JSON.stringify(s.project)}`,
        {
          field: `${field}[${i}]`,
          tool: id,
        },
      );
    }
    return k;
  });
}

/** Like resolveTools but ignores unknown ids (for exclusion lists). */
export function resolveKnownTools(s: GraphSnapshot, ids: readonly string[] | undefined): number[] {
  return (ids ?? []).flatMap((id) => {
    const k = s.index.get(id);
    return k === undefined ? [] : [k];
  });
}

export function badRequest(field: string, message: string): ToolgraphError {
  return new ToolgraphError("invalid-input", `${field}: ${message}`, { field });
}
