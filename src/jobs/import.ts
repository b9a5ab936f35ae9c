/**
 * Import service: catalog, traces, declared edges, and recording one execution.
 * One file is one transaction: a bad record rolls the whole file back (nothing already stored is
 * lost or half-written), or with `skipInvalid` it is skipped and reported. Each write bumps the
 * project's graph version once.
 *
 * One execution (a recorded one, or a file of one) takes a short path with the same guarantees: one
 * transaction of two statements — `checkExecution` (known tools and capability, graph version, and the
 * user's history row locked) then `insertExecution` (everything else, the new history and the version
 * bump included, gated on the execution row being new) — where a batch takes five to eight.
 */
import type { Kysely, Transaction } from "kysely";
import { learnEdges, successionsOf } from "../../algorithms/graph/edge-learning.ts";
import { LEVEL_OF } from "../../algorithms/graph/edge-quality.ts";
import { emptyUserHistory, type UserHistory } from "../../algorithms/thresholds/user-history.ts";
import { zodProblems } from "../formats/issues.ts";
import {
  duplicateIdErrors,
  ImportError,
  type LineError,
  lineError,
  parseCatalogSteps,
  parseJsonl,
} from "../formats/parse.ts";
import {
  type CatalogInput,
  type DeclaredEdgeInput,
  declaredEdgeSchema,
  dependencyCycle,
  type ExecutionInput,
  executionSchema,
  LIMITS,
} from "../formats/schemas.ts";
import {
  autoRegisterTools,
  knownCapabilityIds,
  knownToolIds,
  sha256,
  type UpsertCounts,
  upsertCapabilities,
  upsertTools,
} from "../store/catalog.ts";
import { upsertDeclaredEdges } from "../store/declared-edges.ts";
import { checkExecution, type EdgesOf, insertExecution, insertExecutions } from "../store/executions.ts";
import { bumpGraphVersion, ensureProject, projectConfig, setProjectConfig } from "../store/projects.ts";
import type { Database } from "../store/schema.ts";
import { DbUserHistoryStore } from "../store/user-state.ts";
import { drainInSlices } from "../view/background.ts";

/** The edge observations a stored execution adds (the store counts them; it knows no algorithm). */
const edgesOf: EdgesOf = (e) => {
  const edges = learnEdges(e.steps);
  return { edges, successions: successionsOf(edges) };
};

export interface CatalogImportResult {
  file: string;
  tools: UpsertCounts;
  capabilities: UpsertCounts;
  graphVersion: number;
  /** The project settings the catalog set (absent when it carried none). */
  settings?: { fallbackTools?: string[] | undefined } | undefined;
}

export type PatternValidator = (pattern: string) => string | undefined;

/** Checks capability patterns compile and are safe; returns errors. Yields to the event loop every few ms (2,000 patterns take seconds on a loaded core). */
async function patternErrors(file: string, catalog: CatalogInput, validate: PatternValidator): Promise<LineError[]> {
  const errors: LineError[] = [];
  let t = performance.now();
  for (const [i, c] of catalog.capabilities.entries()) {
    for (const [k, p] of c.patterns.entries()) {
      const problem = validate(p);
      if (problem) errors.push({ file, line: 1, field: `capabilities[${i}].patterns[${k}]`, message: problem });
      if (performance.now() - t > 5) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        t = performance.now();
      }
    }
  }
  return errors;
}

export async function importCatalog(
  db: Kysely<Database>,
  project: string,
  input: string | { json: unknown },
  file: string,
  options: { validatePattern: PatternValidator },
): Promise<CatalogImportResult> {
  // In steps: a catalog of thousands of tools is tens of ms of checking (the event loop stays free).
  const catalog = await drainInSlices(parseCatalogSteps(input, file));
  const errors = await patternErrors(file, catalog, options.validatePattern);
  return db.transaction().execute(async (trx) => {
    await ensureProject(trx, project);
    // Members must be tools of this file or already stored; dependencies, capabilities likewise.
    const fileTools = new Set(catalog.tools.map((t) => t.id));
    const memberIds = [...new Set(catalog.capabilities.flatMap((c) => c.tools))].filter((t) => !fileTools.has(t));
    const stored = await knownToolIds(trx, project, memberIds);
    const fileCaps = new Set(catalog.capabilities.map((c) => c.id));
    const depIds = [...new Set(catalog.capabilities.flatMap((c) => c.dependsOn))].filter((c) => !fileCaps.has(c));
    const storedCaps = await knownCapabilityIds(trx, project, depIds);
    catalog.capabilities.forEach((c, i) => {
      c.tools.forEach((t, k) => {
        if (!fileTools.has(t) && !stored.has(t)) {
          errors.push({
            file,
            line: 1,
            field: `capabilities[${i}].tools[${k}]`,
            message: `unknown tool ${JSON.stringify(t)}`,
          });
        }
      });
      c.dependsOn.forEach((d, k) => {
        if (!fileCaps.has(d) && !storedCaps.has(d)) {
          errors.push({
            file,
            line: 1,
            field: `capabilities[${i}].dependsOn[${k}]`,
            message: `unknown capability ${JSON.stringify(d)}`,
          });
        }
      });
    });
    const fallbacks = catalog.settings?.fallbackTools ?? [];
    const storedFallbacks = await knownToolIds(
      trx,
      project,
      fallbacks.filter((t) => !fileTools.has(t)),
    );
    fallbacks.forEach((t, k) => {
      if (!fileTools.has(t) && !storedFallbacks.has(t)) {
        errors.push({
          file,
          line: 1,
          field: `settings.fallbackTools[${k}]`,
          message: `unknown tool ${JSON.stringify(t)}`,
        });
      }
    });
    if (errors.length === 0 && catalog.capabilities.some((c) => c.patterns.length > 0)) {
      // The project's total of trigger patterns after this import (the file's capabilities replace theirs).
      const rows = await trx
        .selectFrom("capabilities")
        .select(["id", "patterns"])
        .where("project", "=", project)
        .execute();
      const stored = rows
        .filter((r) => !fileCaps.has(r.id))
        .reduce((n, r) => n + (Array.isArray(r.patterns) ? r.patterns.length : 0), 0);
      const total = stored + catalog.capabilities.reduce((n, c) => n + c.patterns.length, 0);
      if (total > LIMITS.patternsPerProject) {
        errors.push({
          file,
          line: 1,
          field: "capabilities",
          message: `the project would hold ${total} trigger patterns (${stored} stored); at most ${LIMITS.patternsPerProject}`,
        });
      }
    }
    if (errors.length === 0 && catalog.capabilities.length > 0) {
      // A cycle through stored capabilities (the file's own cycles are refused by the schema): the file's
      // capabilities replace their stored dependencies.
      const stored = await trx
        .selectFrom("capability_dependencies")
        .select(["from_capability", "to_capability"])
        .where("project", "=", project)
        .execute();
      const deps = new Map<string, string[]>();
      for (const r of stored)
        if (!fileCaps.has(r.from_capability))
          deps.set(r.from_capability, [...(deps.get(r.from_capability) ?? []), r.to_capability]);
      for (const c of catalog.capabilities) deps.set(c.id, c.dependsOn);
      const cycle = dependencyCycle(deps);
      if (cycle) {
        const i = catalog.capabilities.findIndex(
          (c) => cycle.includes(c.id) && c.dependsOn.includes(cycle[cycle.indexOf(c.id) + 1]!),
        );
        const k =
          i >= 0
            ? catalog.capabilities[i]!.dependsOn.indexOf(cycle[cycle.indexOf(catalog.capabilities[i]!.id) + 1]!)
            : 0;
        errors.push({
          file,
          line: 1,
          field: `capabilities[${Math.max(i, 0)}].dependsOn[${k}]`,
          message: `closes a dependsOn cycle: ${cycle.join(" → ")}`,
        });
      }
    }
    if (errors.length > 0) throw new ImportError(errors);
    const tools = await upsertTools(trx, project, catalog.tools);
    const capabilities = await upsertCapabilities(trx, project, catalog.capabilities);
    let settingsChanged = false;
    if (catalog.settings?.fallbackTools !== undefined) {
      const cfg = await projectConfig(trx, project);
      settingsChanged = JSON.stringify(cfg.fallbackTools ?? null) !== JSON.stringify(catalog.settings.fallbackTools);
      if (settingsChanged)
        await setProjectConfig(trx, project, { ...cfg, fallbackTools: catalog.settings.fallbackTools });
    }
    // An import that changes nothing leaves the graph version (and every cache keyed by it) alone.
    const changed =
      settingsChanged || tools.inserted + tools.updated > 0 || capabilities.inserted + capabilities.updated > 0;
    const graphVersion = changed ? await bumpGraphVersion(trx, project) : await currentVersion(trx, project);
    return { file, tools, capabilities, graphVersion, ...(catalog.settings ? { settings: catalog.settings } : {}) };
  });
}

export interface TraceImportOptions {
  /** Skip (and report) invalid records instead of rolling back the file. Default false. */
  skipInvalid?: boolean | undefined;
  /** Register tools and capabilities named by traces but absent from the catalog. Default false. */
  autoRegister?: boolean | undefined;
}

export interface TraceImportResult {
  file: string;
  inserted: number;
  skippedExisting: number;
  invalid: LineError[];
  steps: number;
  edgesTouched: number;
  autoRegistered: string[];
  graphVersion: number;
  insertedIds: string[];
}

/**
 * The users' new histories from their stored ones and the executions actually inserted (see
 * jobs/user-history.ts `userHistoryUpdate`). Users absent from the result keep their history.
 */
export type UserHistoryUpdate = (
  stored: ReadonlyMap<string, UserHistory>,
  inserted: readonly ExecutionInput[],
) => (readonly [string, UserHistory])[];

export interface ExecutionImportOptions extends TraceImportOptions {
  initialErrors?: LineError[];
  /** Updates the users' histories in the import's transaction, for the executions actually inserted. */
  userHistory?: UserHistoryUpdate | undefined;
  /** Runs inside the import's transaction with the executions actually inserted (after `userHistory`). */
  withinTransaction?: (trx: Transaction<Database>, inserted: ExecutionInput[]) => Promise<void>;
}

/** `unknown tool` / `unknown capability` errors of these records, naming the field. */
function unknownReferenceErrors(
  file: string,
  records: readonly { line: number; value: ExecutionInput }[],
  known: Set<string>,
  knownCaps: Set<string>,
): LineError[] {
  const errors: LineError[] = [];
  for (const r of records) {
    r.value.steps.forEach((s, i) => {
      if (!known.has(s.tool)) {
        errors.push(
          lineError(file, r.line, `steps[${i}].tool`, `unknown tool ${JSON.stringify(s.tool)}`, {
            kind: "auto-register",
          }),
        );
      }
    });
    if (r.value.capability && !knownCaps.has(r.value.capability)) {
      errors.push(
        lineError(file, r.line, "capability", `unknown capability ${JSON.stringify(r.value.capability)}`, {
          kind: "auto-register",
        }),
      );
    }
  }
  return errors;
}

/** Registers unknown tools and capabilities (autoRegister); returns the tools registered. */
async function registerUnknown(
  trx: Transaction<Database>,
  project: string,
  unknownTools: string[],
  unknownCaps: string[],
): Promise<string[]> {
  await autoRegisterTools(trx, project, unknownTools);
  if (unknownCaps.length > 0) {
    await upsertCapabilities(
      trx,
      project,
      unknownCaps.map((id) => ({
        id,
        name: id,
        description: "",
        tools: [],
        patterns: [],
        keywords: [],
        priority: 0,
        dependsOn: [],
      })),
    );
  }
  return unknownTools;
}

export async function importExecutions(
  db: Kysely<Database>,
  project: string,
  records: { line: number; value: ExecutionInput }[],
  file: string,
  options: ExecutionImportOptions,
): Promise<TraceImportResult> {
  const errors: LineError[] = [...(options.initialErrors ?? []), ...duplicateIdErrors(file, records)];
  if (records.length === 1 && errors.length === 0) return importOne(db, project, records[0]!, file, options);
  return db.transaction().execute(async (trx) => {
    const toolIds = [...new Set(records.flatMap((r) => r.value.steps.map((s) => s.tool)))];
    const known = await knownToolIds(trx, project, toolIds);
    const capIds = [...new Set(records.flatMap((r) => (r.value.capability ? [r.value.capability] : [])))];
    const knownCaps = await knownCapabilityIds(trx, project, capIds);
    const unknownTools = toolIds.filter((t) => !known.has(t));
    const unknownCaps = capIds.filter((c) => !knownCaps.has(c));
    if (!options.autoRegister) errors.push(...unknownReferenceErrors(file, records, known, knownCaps));
    const badLines = new Set(errors.map((e) => e.line));
    if (errors.length > 0 && !options.skipInvalid) throw new ImportError(errors);
    const good = records.filter((r) => !badLines.has(r.line)).map((r) => r.value);
    const autoRegistered = options.autoRegister ? await registerUnknown(trx, project, unknownTools, unknownCaps) : [];
    // The users' history rows are locked before any other row is written, as for a recorded execution
    // (new users' rows created as empty placeholders), so the two paths never wait on each other in a cycle.
    const histories = options.userHistory ? new DbUserHistoryStore(trx) : undefined;
    const users = histories ? [...new Set(good.flatMap((e) => (e.user ? [e.user] : [])))] : [];
    const placeholder = emptyUserHistory();
    const stored =
      histories && users.length > 0
        ? await histories.lockMany(project, users, placeholder)
        : new Map<string, UserHistory>();
    const res = await insertExecutions(trx, project, good, sha256, edgesOf);
    const ids = new Set(res.inserted);
    const fresh = good.filter((e) => ids.has(e.id));
    if (histories && users.length > 0) {
      const updated = options.userHistory!(stored, fresh);
      if (updated.length > 0) await histories.saveMany(project, updated);
      const written = new Set(updated.map(([u]) => u));
      await histories.dropPlaceholders(
        project,
        users.filter((u) => !written.has(u)),
        placeholder,
      );
    }
    if (options.withinTransaction && fresh.length > 0) await options.withinTransaction(trx, fresh);
    // The project row is created on the first write only.
    let graphVersion = 0;
    if (res.inserted.length > 0 || autoRegistered.length > 0) {
      graphVersion = await bumpGraphVersion(trx, project);
      if (graphVersion === 0) {
        await ensureProject(trx, project);
        graphVersion = await bumpGraphVersion(trx, project);
      }
    } else graphVersion = await currentVersion(trx, project);
    return {
      file,
      inserted: res.inserted.length,
      skippedExisting: res.skipped.length,
      invalid: options.skipInvalid ? errors : [],
      steps: res.steps,
      edgesTouched: res.edgesTouched,
      autoRegistered,
      graphVersion,
      insertedIds: res.inserted,
    };
  });
}

/** One execution: one transaction, two statements (more only to auto-register or for `withinTransaction`). */
async function importOne(
  db: Kysely<Database>,
  project: string,
  record: { line: number; value: ExecutionInput },
  file: string,
  options: ExecutionImportOptions,
): Promise<TraceImportResult> {
  const e = record.value;
  const toolIds = [...new Set(e.steps.map((s) => s.tool))];
  const capIds = e.capability ? [e.capability] : [];
  const placeholder = emptyUserHistory();
  const user = options.userHistory && e.user ? { id: e.user, placeholder } : undefined;
  return db.transaction().execute(async (trx): Promise<TraceImportResult> => {
    const check = await checkExecution(trx, project, toolIds, capIds, { user, autoRegister: options.autoRegister });
    const errors = options.autoRegister ? [] : unknownReferenceErrors(file, [record], check.tools, check.capabilities);
    if (errors.length > 0) {
      if (!options.skipInvalid) throw new ImportError(errors);
      return {
        file,
        inserted: 0,
        skippedExisting: 0,
        invalid: errors,
        steps: 0,
        edgesTouched: 0,
        autoRegistered: [],
        graphVersion: check.graphVersion,
        insertedIds: [],
      };
    }
    const autoRegistered = options.autoRegister
      ? await registerUnknown(
          trx,
          project,
          toolIds.filter((t) => !check.tools.has(t)),
          capIds.filter((c) => !check.capabilities.has(c)),
        )
      : [];
    let history: { user: string; history: UserHistory; placeholder: UserHistory } | undefined;
    if (user) {
      // The locked row: the user's latest history, or the placeholder (= a new user's empty history).
      const next = options.userHistory!(new Map([[user.id, check.history ?? placeholder]]), [e]).find(
        ([u]) => u === user.id,
      );
      history = { user: user.id, history: next ? next[1] : (check.history ?? placeholder), placeholder };
    }
    const r = await insertExecution(trx, project, e, sha256, edgesOf, {
      history,
      bumpIfSkipped: autoRegistered.length > 0,
    });
    if (r.inserted && options.withinTransaction) await options.withinTransaction(trx, [e]);
    return {
      file,
      inserted: r.inserted ? 1 : 0,
      skippedExisting: r.inserted ? 0 : 1,
      invalid: [],
      steps: r.steps,
      edgesTouched: r.edgesTouched,
      autoRegistered,
      graphVersion: r.graphVersion,
      insertedIds: r.inserted ? [e.id] : [],
    };
  });
}

async function currentVersion(db: Kysely<Database>, project: string): Promise<number> {
  const row = await db.selectFrom("projects").select("graph_version").where("project", "=", project).executeTakeFirst();
  return Number(row?.graph_version ?? 0);
}

export async function importTraces(
  db: Kysely<Database>,
  project: string,
  text: string,
  file: string,
  options: TraceImportOptions = {},
): Promise<TraceImportResult & { executions: ExecutionInput[] }> {
  const parsed = parseJsonl(text, file, executionSchema);
  if (parsed.errors.length > 0 && !options.skipInvalid) throw new ImportError(parsed.errors);
  const r = await importExecutions(db, project, parsed.records, file, { ...options, initialErrors: parsed.errors });
  return { ...r, executions: parsed.records.map((x) => x.value) };
}

export interface EdgeImportResult {
  file: string;
  edges: number;
  invalid: LineError[];
  graphVersion: number;
}

export async function importDeclaredEdges(
  db: Kysely<Database>,
  project: string,
  text: string,
  file: string,
  options: { skipInvalid?: boolean | undefined } = {},
): Promise<EdgeImportResult> {
  const parsed = parseJsonl(text, file, declaredEdgeSchema);
  const errors = [...parsed.errors];
  if (errors.length > 0 && !options.skipInvalid) throw new ImportError(errors);
  return db.transaction().execute(async (trx) => {
    await ensureProject(trx, project);
    const ids = [...new Set(parsed.records.flatMap((r) => [r.value.from, r.value.to]))];
    const known = await knownToolIds(trx, project, ids);
    for (const r of parsed.records) {
      for (const f of ["from", "to"] as const) {
        if (!known.has(r.value[f]))
          errors.push({ file, line: r.line, field: f, message: `unknown tool ${JSON.stringify(r.value[f])}` });
      }
    }
    if (errors.length > 0 && !options.skipInvalid) throw new ImportError(errors);
    const bad = new Set(errors.map((e) => e.line));
    const good: DeclaredEdgeInput[] = parsed.records.filter((r) => !bad.has(r.line)).map((r) => r.value);
    const n = await upsertDeclaredEdges(trx, project, good, (source) => LEVEL_OF[source]);
    const graphVersion = n > 0 ? await bumpGraphVersion(trx, project) : await currentVersion(trx, project);
    return { file, edges: n, invalid: options.skipInvalid ? errors : [], graphVersion };
  });
}

/** Validates one execution given as a JS object (library, HTTP, MCP doors). */
export function validateExecution(value: unknown, source = "execution", line = 1): ExecutionInput {
  const r = executionSchema.safeParse(value);
  if (!r.success) {
    throw new ImportError(zodProblems(r.error.issues).map((p) => ({ file: source, line, ...p })));
  }
  return r.data;
}
