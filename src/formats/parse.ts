/**
 * Parsing and validating import files. Every error names the file, the line and the field.
 * JSONL: one record per line; blank lines are ignored. With `skipInvalid` bad lines are collected
 * and reported instead of failing the whole file. Every text is read by parseJsonText (formats/json-text.ts):
 * a line or file nested deeper than LIMITS.documentDepth is an error on its line, never a stack overflow.
 */
import type { z } from "zod";
import { ToolgraphError } from "../contract/errors.ts";
import { type Advice, adviceText, type Door, respell } from "./advice.ts";
import { fieldOf, problemsMessage, zodProblems } from "./issues.ts";
import { parseJsonText } from "./json-text.ts";
import { type CatalogInput, catalogSchema, type ToolInput } from "./schemas.ts";
import { toolInput } from "./tool-check.ts";

export interface LineError {
  file: string;
  line: number;
  field: string;
  /** Ends with the library's spelling of `advice`, when there is one. */
  message: string;
  /** What would make the line acceptable, spelled per door (src/formats/advice.ts). */
  advice?: Advice | undefined;
}

/** A line error whose message ends with `advice`, as the library spells it. */
export function lineError(file: string, line: number, field: string, message: string, advice: Advice): LineError {
  return { file, line, field, message: message + adviceText(advice, "library"), advice };
}

/** The line error's message with its advice spelled for `door`. */
export function lineErrorMessage(e: LineError, door: Door): string {
  return respell(e.message, e.advice, door);
}

export function formatLineError(e: LineError, door: Door = "library"): string {
  return `${e.file}:${e.line}: ${e.field ? `${e.field}: ` : ""}${lineErrorMessage(e, door)}`;
}

function importMessage(errors: LineError[], door: Door): string {
  const head = errors
    .slice(0, 5)
    .map((e) => formatLineError(e, door))
    .join("\n  ");
  const more = errors.length > 5 ? `\n  … and ${errors.length - 5} more` : "";
  return `invalid input (nothing was written):\n  ${head}${more}`;
}

export class ImportError extends ToolgraphError {
  readonly errors: LineError[];
  constructor(errors: LineError[]) {
    super("invalid-input", importMessage(errors, "library"), { errors });
    this.errors = errors;
  }

  override messageFor(door: Door): string {
    return importMessage(this.errors, door);
  }
}

/**
 * Validates one request with its schema: the one validation a request gets, whichever door it came
 * through (the facade's public methods call it; the doors do not validate again). A failure is an
 * "invalid-input" ToolgraphError naming the first field (`steps[0].tool`), every problem in `issues`.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const problems = zodProblems(r.error.issues);
  throw new ToolgraphError("invalid-input", problemsMessage(problems), {
    field: problems[0]?.field ?? "",
    issues: problems,
  });
}

export interface ParsedJsonl<T> {
  records: { line: number; value: T }[];
  errors: LineError[];
}

export function parseJsonl<S extends z.ZodType>(text: string, file: string, schema: S): ParsedJsonl<z.output<S>> {
  const records: { line: number; value: z.output<S> }[] = [];
  const errors: LineError[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    const parsed = parseJsonText(raw);
    if (!parsed.ok) {
      errors.push({ file, line, field: fieldOf(parsed.problem.path), message: parsed.problem.message });
      return;
    }
    const r = schema.safeParse(parsed.value);
    if (!r.success) {
      for (const p of zodProblems(r.error.issues)) errors.push({ file, line, ...p });
      return;
    }
    records.push({ line, value: r.data });
  });
  return { records, errors };
}

/** Line (1-based) of the n-th occurrence of `"id": "<id>"`-like text, for catalog errors. */
function lineOfIndex(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Validates a catalog given as JSON text (errors carry the line of the record) or as a value already
 * parsed from JSON (`{ json }`: the library and HTTP doors; errors on line 1).
 */
export function parseCatalog(input: string | { json: unknown }, file: string): CatalogInput {
  const text = typeof input === "string" ? input : "";
  let json: unknown;
  if (typeof input !== "string") json = input.json;
  else {
    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      const p = parsed.problem;
      throw new ImportError([{ file, line: lineOfIndex(text, p.index), field: fieldOf(p.path), message: p.message }]);
    }
    json = parsed.value;
  }
  const r = catalogSchema.safeParse(json);
  if (!r.success) {
    const raw = json as { tools?: { id?: unknown }[]; capabilities?: { id?: unknown }[] };
    throw new ImportError(
      r.error.issues.map((issue) => {
        const [section, idx] = issue.path as (string | number)[];
        let line = 1;
        const rec = section === "tools" || section === "capabilities" ? raw[section]?.[idx as number] : undefined;
        if (rec && typeof rec.id === "string") {
          const at = text.indexOf(JSON.stringify(rec.id));
          if (at >= 0) line = lineOfIndex(text, at);
        }
        return { file, line, ...zodProblems([issue])[0]! };
      }),
    );
  }
  const errors = duplicateCatalogIds(r.data, text, file);
  // Members and dependencies must name tools/capabilities of this file or already stored (checked by the service).
  if (errors.length > 0) throw new ImportError(errors);
  return r.data;
}

/** Tools checked between two yields of `parseCatalogSteps`. */
const CATALOG_STEP_TOOLS = 100;

/**
 * `parseCatalog` in steps, for a caller on the event loop (2,000 tools are tens of ms of zod in one piece): each
 * tool is checked on its own (tool-check.ts `toolInput`: exactly toolSchema's answer), with a yield every
 * CATALOG_STEP_TOOLS tools, then the rest of the catalog (capabilities, settings, the catalog's own checks, none
 * of which reads the tools) in one parse with an empty tool list. Returns what parseCatalog returns; when
 * anything is refused, or the input is not a plain JSON object with a tool array, parseCatalog itself runs, so
 * the errors are its own.
 */
export function* parseCatalogSteps(input: string | { json: unknown }, file: string): Generator<void, CatalogInput> {
  let json: unknown;
  if (typeof input !== "string") json = input.json;
  else {
    const parsed = parseJsonText(input);
    if (!parsed.ok) return parseCatalog(input, file);
    json = parsed.value;
    yield;
  }
  if (!plainObject(json) || !Array.isArray(json.tools) || Object.getPrototypeOf(json.tools) !== Array.prototype)
    return parseCatalog(input, file);
  const listed: unknown[] = json.tools;
  const tools: ToolInput[] = [];
  for (let i = 0; i < listed.length; i++) {
    if (i > 0 && i % CATALOG_STEP_TOOLS === 0) yield;
    const r = toolInput(listed[i]);
    if (!r.success) return parseCatalog(input, file);
    tools.push(r.data);
  }
  const rest = catalogSchema.safeParse({ ...json, tools: [] });
  if (!rest.success) return parseCatalog(input, file);
  rest.data.tools = tools;
  if (duplicateCatalogIds(rest.data, typeof input === "string" ? input : "", file).length > 0)
    return parseCatalog(input, file);
  return rest.data;
}

function plainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

/** Ids repeated inside one catalog file, each with the line of its second occurrence. */
function duplicateCatalogIds(data: CatalogInput, text: string, file: string): LineError[] {
  const errors: LineError[] = [];
  for (const section of ["tools", "capabilities"] as const) {
    const seen = new Set<string>();
    data[section].forEach((rec, i) => {
      if (seen.has(rec.id)) {
        const at = text.indexOf(JSON.stringify(rec.id), text.indexOf(JSON.stringify(rec.id)) + 1);
        errors.push({
          file,
          line: at >= 0 ? lineOfIndex(text, at) : 1,
          field: `${section}[${i}].id`,
          message: `duplicate id ${JSON.stringify(rec.id)} in this file`,
        });
      }
      seen.add(rec.id);
    });
  }
  return errors;
}

/** Flags records whose `id` repeats within one JSONL file. */
export function duplicateIdErrors<T extends { id: string }>(
  file: string,
  records: { line: number; value: T }[],
): LineError[] {
  const first = new Map<string, number>();
  const errors: LineError[] = [];
  for (const r of records) {
    const prev = first.get(r.value.id);
    if (prev !== undefined) {
      errors.push({
        file,
        line: r.line,
        field: "id",
        message: `duplicate id ${JSON.stringify(r.value.id)} (first on line ${prev})`,
      });
    } else first.set(r.value.id, r.line);
  }
  return errors;
}
