/** Writes of the catalog: tools, capabilities, memberships, capability dependencies. */
import { createHash } from "node:crypto";
import { type Kysely, sql, type Transaction } from "kysely";
import type { CapabilityInput, ToolInput } from "../formats/schemas.ts";
import type { Database } from "./schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

const CHUNK = 500;
/** Tools marked unavailable by one statement of markUnlistedUnavailable. */
const UNLISTED_CHUNK = 250;

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The fields that define a tool's searchable text; a change re-embeds the tool. */
export function toolTextHash(t: ToolInput): string {
  const params = Object.entries(
    (t.inputSchema?.properties as Record<string, { description?: unknown }> | undefined) ?? {},
  ).map(([k, v]) => [k, typeof v?.description === "string" ? v.description : ""]);
  return sha256(JSON.stringify([t.id, t.name ?? t.id, t.description, params, t.tags, t.examples]));
}

export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

export async function existingToolHashes(
  db: Db,
  project: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const part of chunks(ids, 5000)) {
    const rows = await db
      .selectFrom("tools")
      .select(["id", "text_hash"])
      .where("project", "=", project)
      .where("id", "=", sql<string>`ANY(${part})`)
      .execute();
    for (const r of rows) out.set(r.id, r.text_hash);
  }
  return out;
}

export async function upsertTools(db: Db, project: string, tools: readonly ToolInput[]): Promise<UpsertCounts> {
  const before = await existingToolHashes(
    db,
    project,
    tools.map((t) => t.id),
  );
  let inserted = 0;
  let updated = 0;
  let unchanged = 0;
  for (const part of chunks(tools, CHUNK)) {
    const rows = part.map((t) => ({
      project,
      id: t.id,
      name: t.name ?? t.id,
      description: t.description,
      input_schema: t.inputSchema ? JSON.stringify(t.inputSchema) : null,
      output_schema: t.outputSchema ? JSON.stringify(t.outputSchema) : null,
      tags: JSON.stringify(t.tags),
      examples: JSON.stringify(t.examples),
      anti_patterns: JSON.stringify(t.antiPatterns),
      cost_estimate: t.costEstimate ?? null,
      avg_latency_ms: t.avgLatencyMs ?? null,
      safety_tags: JSON.stringify(t.safetyTags),
      server: t.server ?? null,
      auto_registered: false,
      text_hash: toolTextHash(t),
    }));
    for (const r of rows) {
      const was = before.get(r.id);
      if (was === undefined) inserted++;
      else if (was === r.text_hash) unchanged++;
      else updated++;
    }
    await db
      .insertInto("tools")
      .values(rows)
      .onConflict((oc) =>
        oc.columns(["project", "id"]).doUpdateSet({
          name: sql`excluded.name`,
          description: sql`excluded.description`,
          input_schema: sql`excluded.input_schema`,
          output_schema: sql`excluded.output_schema`,
          tags: sql`excluded.tags`,
          examples: sql`excluded.examples`,
          anti_patterns: sql`excluded.anti_patterns`,
          cost_estimate: sql`excluded.cost_estimate`,
          avg_latency_ms: sql`excluded.avg_latency_ms`,
          safety_tags: sql`excluded.safety_tags`,
          server: sql`excluded.server`,
          auto_registered: false,
          available: true,
          unavailable_since: null,
          retired_at: null,
          text_hash: sql`excluded.text_hash`,
          updated_at: sql`now()`,
        }),
      )
      .execute();
  }
  // Counted per chunk with the hash the row already has: hashing the whole catalog again held the event loop
  // for 3,000 sha256 of JSON in one piece.
  return { inserted, updated, unchanged };
}

/**
 * Marks the tools of one upstream `server` that are not in `listed` unavailable since now (kept with their
 * history), and returns their ids. Tools in `listed` were made available again by `upsertTools`.
 *
 * In steps: the server's available ids are read, the unlisted ones found with a set (linear), and marked
 * `UNLISTED_CHUNK` at a time (~7 ms of the database's CPU each). One `id <> ALL($listed)` statement bound every listed id (3,000 for a large server) and
 * compared each row with each of them, in one piece (on the event loop's thread when the embedded database runs
 * there: 250–370 ms for 1,500 unlisted of 3,000 at load 13; docs/decisions/gateway-first-answer.md).
 */
export async function markUnlistedUnavailable(
  db: Db,
  project: string,
  server: string,
  listed: readonly string[],
): Promise<string[]> {
  const available = await db
    .selectFrom("tools")
    .select("id")
    .where("project", "=", project)
    .where("server", "=", server)
    .where("available", "=", true)
    .execute();
  const keep = new Set(listed);
  const gone: string[] = [];
  for (const r of available) if (!keep.has(r.id)) gone.push(r.id);
  for (const part of chunks(gone, UNLISTED_CHUNK)) {
    // A turn of the event loop between chunks (an embedded database on the loop's thread answers in microtasks).
    await new Promise<void>((resolve) => setImmediate(resolve));
    await db
      .updateTable("tools")
      .set({ available: false, unavailable_since: sql`now()`, updated_at: sql`now()` })
      .where("project", "=", project)
      .where("server", "=", server)
      .where("id", "=", sql<string>`ANY(${part})`)
      .execute();
  }
  return gone.sort();
}

/**
 * Retires the tools (of one `server`, or of every server) that have been unavailable for longer than `graceMs`
 * by the database's clock: they leave the read model (loadTools skips them), their rows and history stay.
 * Returns their ids, sorted.
 */
export async function retireUnavailable(db: Db, project: string, graceMs: number, server?: string): Promise<string[]> {
  let q = db
    .updateTable("tools")
    .set({ retired_at: sql`now()` })
    .where("project", "=", project)
    .where("available", "=", false)
    .where("retired_at", "is", null)
    .where("unavailable_since", "<=", sql<Date>`now() - make_interval(secs => ${graceMs / 1000})`);
  if (server !== undefined) q = q.where("server", "=", server);
  const rows = await q.returning("id").execute();
  return rows.map((r) => r.id).sort();
}

/** Registers tools named by traces but absent from the catalog (`--auto-register`). */
export async function autoRegisterTools(db: Db, project: string, ids: readonly string[]): Promise<void> {
  for (const part of chunks(ids, CHUNK)) {
    await db
      .insertInto("tools")
      .values(
        part.map((id) => ({
          project,
          id,
          name: id,
          description: "",
          input_schema: null,
          output_schema: null,
          tags: "[]",
          examples: "[]",
          anti_patterns: "[]",
          safety_tags: "[]",
          cost_estimate: null,
          avg_latency_ms: null,
          server: null,
          auto_registered: true,
          text_hash: sha256(JSON.stringify([id, id, "", [], [], []])),
        })),
      )
      .onConflict((oc) => oc.columns(["project", "id"]).doNothing())
      .execute();
  }
}

export function capabilityTextHash(c: CapabilityInput): string {
  return sha256(JSON.stringify([c.id, c.name ?? c.id, c.description, c.keywords]));
}

export async function upsertCapabilities(
  db: Db,
  project: string,
  caps: readonly CapabilityInput[],
): Promise<UpsertCounts> {
  const existing = new Set(
    (
      await db
        .selectFrom("capabilities")
        .select("id")
        .where("project", "=", project)
        .where("id", "=", sql<string>`ANY(${caps.map((c) => c.id)})`)
        .execute()
    ).map((r) => r.id),
  );
  for (const part of chunks(caps, CHUNK)) {
    await db
      .insertInto("capabilities")
      .values(
        part.map((c) => ({
          project,
          id: c.id,
          name: c.name ?? c.id,
          description: c.description,
          patterns: JSON.stringify(c.patterns),
          keywords: JSON.stringify(c.keywords),
          priority: c.priority,
          text_hash: capabilityTextHash(c),
        })),
      )
      .onConflict((oc) =>
        oc.columns(["project", "id"]).doUpdateSet({
          name: sql`excluded.name`,
          description: sql`excluded.description`,
          patterns: sql`excluded.patterns`,
          keywords: sql`excluded.keywords`,
          priority: sql`excluded.priority`,
          text_hash: sql`excluded.text_hash`,
          updated_at: sql`now()`,
        }),
      )
      .execute();
  }
  // Declared membership: replace the declared set of each imported capability, keep observations.
  const ids = caps.map((c) => c.id);
  if (ids.length > 0) {
    await db
      .updateTable("capability_tools")
      .set({ declared: false })
      .where("project", "=", project)
      .where("capability_id", "=", sql<string>`ANY(${ids})`)
      .execute();
    await db
      .deleteFrom("capability_dependencies")
      .where("project", "=", project)
      .where("from_capability", "=", sql<string>`ANY(${ids})`)
      .execute();
  }
  const members = caps.flatMap((c) =>
    [...new Set(c.tools)].map((t) => ({ project, capability_id: c.id, tool_id: t, declared: true })),
  );
  for (const part of chunks(members, 2000)) {
    await db
      .insertInto("capability_tools")
      .values(part)
      .onConflict((oc) => oc.columns(["project", "capability_id", "tool_id"]).doUpdateSet({ declared: true }))
      .execute();
  }
  const deps = caps.flatMap((c) =>
    [...new Set(c.dependsOn)].map((d) => ({ project, from_capability: c.id, to_capability: d, weight: 1 })),
  );
  for (const part of chunks(deps, 2000)) {
    await db
      .insertInto("capability_dependencies")
      .values(part)
      .onConflict((oc) => oc.columns(["project", "from_capability", "to_capability"]).doNothing())
      .execute();
  }
  const inserted = caps.filter((c) => !existing.has(c.id)).length;
  return { inserted, updated: caps.length - inserted, unchanged: 0 };
}

export async function knownToolIds(db: Db, project: string, ids: readonly string[]): Promise<Set<string>> {
  return new Set((await existingToolHashes(db, project, ids)).keys());
}

export async function knownCapabilityIds(db: Db, project: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom("capabilities")
    .select("id")
    .where("project", "=", project)
    .where("id", "=", sql<string>`ANY(${[...ids]})`)
    .execute();
  return new Set(rows.map((r) => r.id));
}
