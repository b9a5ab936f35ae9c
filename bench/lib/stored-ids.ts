/**
 * Which of some execution ids a project holds, asked through the public write path: recording is idempotent by
 * id (an id already stored is skipped), so importing one placeholder execution per id inserts exactly those not
 * stored and names them (`insertedIds`). Ask after the measurement: the question stores the missing ones (as
 * placeholders of one step on `tool`), so a later question finds them; keep the first answer.
 */
import type { Toolgraph } from "../../src/index.ts";

export async function storedAmong(
  tg: Toolgraph,
  ids: Iterable<string>,
  o: { tool: string; project?: string },
): Promise<Set<string>> {
  const asked = [...new Set(ids)];
  if (asked.length === 0) return new Set();
  const placeholders = asked.map((id) => ({
    id,
    startedAt: "2026-01-01T00:00:00.000Z",
    success: true,
    steps: [{ tool: o.tool }],
  }));
  const r = await tg.importTraces(placeholders, { project: o.project });
  const inserted = new Set(r.insertedIds);
  return new Set(asked.filter((id) => !inserted.has(id)));
}
