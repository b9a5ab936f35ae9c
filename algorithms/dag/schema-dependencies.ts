/**
 * Schema-compatible dependencies: "B depends on A" proposed from the tools' declared inputs and outputs,
 * for selected pairs that have no observed or declared relation (NESTFUL's Glaive subset
 * combines ~70 tools at random, so most test pairs were never seen together in a trace).
 *
 *   fit(o, i)      = 1 when the type classes of output field o and input i agree (number ⊇ integer, float),
 *                    ½ when one is unknown or i is a string fed by a non-string (any value can be passed as
 *                    text), else 0
 *   name(o, i)     = |T(i.name) ∩ T(o.name)| / |T(i.name)|      (share of the input's name words the output has)
 *   text(o, i)     = Jaccard(T(i.name + i.description), T(o.name + o.description))
 *   match(o, i)    = fit(o, i) × (1 + name(o, i) + text(o, i)) / 3                       ∈ [0, 1]
 *   score(A → B)   = max over outputs o of A and *required* inputs i of B of match(o, i)
 *
 * T = the search tokenizer's word set (identifiers split, stop words dropped, light stemming); a nested
 * output field `presentation.title` is matched by its last name (`title`).
 *
 * Each consumer B gets at most one proposed prerequisite: the A with the highest score (ties → earlier in
 * `selected`) among the selected tools with no relation to B (`related`), when B has no prerequisite among
 * the selected tools yet (`hasPrerequisite`: learned and declared evidence keep priority, a schema edge never
 * adds a second input to an explained tool) and
 *
 *   score(A → B) ≥ minScore (0.1)               when consumerRate(B) ≥ minConsumerRate (0.7)
 *   score(A → B) ≥ minScoreAnyConsumer (0.4)    otherwise (a tool never seen consuming needs a name/word match)
 *
 * consumerRate(B) = the learned share of B's executions that read another tool's output (the service passes
 * min(1, Σ_u dependency count(u → B) / executions(B))). With fit ≥ ½ and no shared word, score = 1/6 or 1/3,
 * so the first rule needs only compatible types; the second needs shared words (score ≥ 0.4).
 * The proposed edge is one hop with strength = `strengthScale` (0.3) × score ≤ 0.3, below the 0.5 of the
 * weakest learned edge, so cycle breaking drops a schema edge before any learned one.
 *
 * Thresholds chosen by leave-one-out over NESTFUL's 150 TRAINING traces only (each multi-step training
 * trace's DAG built from the other 149, gold tool set given, dependency graph; edge F1 over all of them —
 * "covered" = every tool occurs in the other traces):
 *   no proposals                                   all 0.716   covered 0.772
 *   minConsumerRate 0.7, minScore 0.1, any 1       all 0.750   covered 0.798
 *   minConsumerRate 0.0, minScore 0.4              all 0.740   covered 0.783   (schema words alone)
 *   minConsumerRate 0.7, minScore 0.1, any 0.4     all 0.768   covered 0.806   ← DEFAULTS
 *   (grid: minConsumerRate ∈ {0, .3, .5, .6, .7, .8, .9}, minScore ∈ {0, .1, .2, .3, .4, .5},
 *    any ∈ {.35, .4, .45, .5, .6, 1}; neighbours on "all": minConsumerRate 0.6 → 0.751, 0.8 → 0.765;
 *    any 0.35 → 0.767, 0.45 → 0.763). ToolLinkOS and Seal-Tools carry no output schemas: no proposals.
 *
 * Source: type- and name-based service composition matching (input/output "plug-in" matching, Paolucci
 * et al., "Semantic Matching of Web Services Capabilities", ISWC 2002), reduced to field names, types
 * and description words.
 */

import { tokenize } from "../search/tokenize.ts";
import { DagError } from "./dag-error.ts";
import type { DependencyEdge } from "./dependency-edge.ts";

const MODULE = "dag/schema-dependencies";

export interface IoField {
  /** Field name; a nested output field is a dotted path (`presentation.title`). */
  readonly name: string;
  /** JSON-Schema type (`number`, `integer`, `string`, …); undefined = unknown. */
  readonly type?: string | undefined;
  readonly description?: string | undefined;
}

export interface InputField extends IoField {
  readonly required: boolean;
}

export interface ToolIo {
  readonly inputs: readonly InputField[];
  readonly outputs: readonly IoField[];
}

export interface SchemaDependenciesOptions {
  /** Minimum score(A → B) for a proposal. Default `DEFAULTS.minScore`. */
  readonly minScore?: number;
  /** consumerRate(B) from which `minScore` applies. Default `DEFAULTS.minConsumerRate`. */
  readonly minConsumerRate?: number;
  /** Minimum score for a consumer B below `minConsumerRate` (1 = exact name and words only). Default `DEFAULTS.minScoreAnyConsumer`. */
  readonly minScoreAnyConsumer?: number;
  /** Strength of a proposed edge = strengthScale × score. Default `DEFAULTS.strengthScale` (0.3). */
  readonly strengthScale?: number;
  /** Share of B's executions in which B consumed another tool's output, in [0, 1]. Default: 1 for every tool. */
  readonly consumerRate?: (node: number) => number;
  /** True when a and b already relate (either direction) by learned or declared evidence. Default: never. */
  readonly related?: (a: number, b: number) => boolean;
  /** True when b already has a prerequisite among the selected tools. Default: never. */
  readonly hasPrerequisite?: (b: number) => boolean;
}

export const DEFAULTS = {
  minScore: 0.1,
  minConsumerRate: 0.7,
  minScoreAnyConsumer: 0.4,
  strengthScale: 0.3,
} as const;

/** A proposed edge: a one-hop DependencyEdge with the fields that matched. */
export interface SchemaDependency extends DependencyEdge {
  readonly schema: { readonly output: string; readonly input: string; readonly score: number };
}

function typeClass(t: string | undefined): string | undefined {
  if (t === undefined) return undefined;
  const k = t.toLowerCase();
  return k === "integer" || k === "float" || k === "number" || k === "double" ? "number" : k;
}

/** fit(o, i) of the header: 1 agree, ½ unknown or non-string into a string, 0 otherwise. */
export function typeFit(output: IoField, input: IoField): number {
  const o = typeClass(output.type);
  const i = typeClass(input.type);
  if (o === undefined || i === undefined) return 0.5;
  if (o === i) return 1;
  return i === "string" ? 0.5 : 0;
}

const words = (text: string): Set<string> => new Set(tokenize(text, { keepCompounds: false }));
const lastName = (name: string): string => name.slice(name.lastIndexOf(".") + 1);

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let common = 0;
  for (const x of a) if (b.has(x)) common++;
  const union = a.size + b.size - common;
  return union === 0 ? 0 : common / union;
}

/** A field with its word sets computed once: `name` = T(last name), `text` = T(last name + description). */
interface PreparedField {
  readonly field: IoField;
  readonly name: ReadonlySet<string>;
  readonly text: ReadonlySet<string>;
}

function prepare(f: IoField): PreparedField {
  const last = lastName(f.name);
  return { field: f, name: words(last), text: words(`${last} ${f.description ?? ""}`) };
}

function preparedMatch(o: PreparedField, i: PreparedField): number {
  const fit = typeFit(o.field, i.field);
  if (fit === 0) return 0;
  let covered = 0;
  for (const x of i.name) if (o.name.has(x)) covered++;
  const name = i.name.size === 0 ? 0 : covered / i.name.size;
  return (fit * (1 + name + jaccard(i.text, o.text))) / 3;
}

/** match(o, i) of the header, in [0, 1]. */
export function fieldMatch(output: IoField, input: IoField): number {
  return preparedMatch(prepare(output), prepare(input));
}

interface PreparedIo {
  readonly required: PreparedField[];
  readonly outputs: PreparedField[];
}

function prepareIo(io: ToolIo): PreparedIo {
  return { required: io.inputs.filter((i) => i.required).map(prepare), outputs: io.outputs.map(prepare) };
}

function preparedScore(a: PreparedIo, b: PreparedIo): { score: number; output: string; input: string } {
  let best = { score: 0, output: "", input: "" };
  for (const i of b.required) {
    for (const o of a.outputs) {
      const s = preparedMatch(o, i);
      if (s > best.score || best.output === "") best = { score: s, output: o.field.name, input: i.field.name };
    }
  }
  return best;
}

/** score(A → B) with the matching fields; empty names when A has no output or B no required input. */
export function schemaScore(a: ToolIo, b: ToolIo): { score: number; output: string; input: string } {
  return preparedScore(prepareIo(a), prepareIo(b));
}

/** `io` with each tool's fields prepared once, on first use (undefined stays undefined). */
function preparedIoOf(io: (node: number) => ToolIo | undefined): (node: number) => PreparedIo | undefined {
  const prepared = new Map<number, PreparedIo | undefined>();
  return (v) => {
    if (!prepared.has(v)) {
      const x = io(v);
      prepared.set(v, x === undefined ? undefined : prepareIo(x));
    }
    return prepared.get(v);
  };
}

/**
 * score(A → B) over node ids, each tool's fields prepared once (`io` may return undefined: no match).
 * Same value as `schemaScore(io(a), io(b))`.
 */
export function createSchemaScorer(
  io: (node: number) => ToolIo | undefined,
): (a: number, b: number) => { score: number; output: string; input: string } | undefined {
  const ioOf = preparedIoOf(io);
  return (a, b) => {
    const x = ioOf(a);
    const y = ioOf(b);
    return x === undefined || y === undefined ? undefined : preparedScore(x, y);
  };
}

function check(name: string, v: number, max: number): void {
  if (!(v >= 0 && v <= max)) throw new DagError(MODULE, "bad-option", `${name} must be in [0, ${max}], got ${v}`);
}

/**
 * Proposed schema edges among `selected` (node ids; `io` may return undefined for a tool without schemas),
 * ordered by the input position of the consumer.
 */
export function schemaDependencies(
  selected: readonly number[],
  io: (node: number) => ToolIo | undefined,
  options: SchemaDependenciesOptions = {},
): SchemaDependency[] {
  const minScore = options.minScore ?? DEFAULTS.minScore;
  const minConsumerRate = options.minConsumerRate ?? DEFAULTS.minConsumerRate;
  const minScoreAny = options.minScoreAnyConsumer ?? DEFAULTS.minScoreAnyConsumer;
  const scale = options.strengthScale ?? DEFAULTS.strengthScale;
  check("minScore", minScore, 1);
  check("minConsumerRate", minConsumerRate, 1);
  check("minScoreAnyConsumer", minScoreAny, 1);
  check("strengthScale", scale, 1);
  const related = options.related ?? (() => false);
  const hasPrerequisite = options.hasPrerequisite ?? (() => false);
  const consumerRate = options.consumerRate ?? (() => 1);
  const ioOf = preparedIoOf(io);
  const out: SchemaDependency[] = [];
  for (const b of selected) {
    if (hasPrerequisite(b)) continue;
    const bio = ioOf(b);
    if (bio === undefined || bio.required.length === 0) continue;
    const threshold = consumerRate(b) >= minConsumerRate ? minScore : minScoreAny;
    let best: { a: number; score: number; output: string; input: string } | undefined;
    for (const a of selected) {
      if (a === b || related(a, b)) continue;
      const aio = ioOf(a);
      if (aio === undefined) continue;
      const s = preparedScore(aio, bio);
      if (s.output === "") continue;
      if (best === undefined || s.score > best.score) best = { a, ...s };
    }
    if (best === undefined || best.score < threshold || best.score === 0) continue;
    const strength = scale * best.score;
    out.push({
      from: best.a,
      to: b,
      path: [best.a, b],
      hops: 1,
      cost: 1 / Math.max(strength, 1e-9),
      meanWeight: strength,
      strength,
      direct: false,
      schema: { output: best.output, input: best.input, score: best.score },
    });
  }
  return out;
}

/** A JSON-Schema-like `{properties, required}` object → input fields (unknown shapes give none). */
export function inputFields(schema: Readonly<Record<string, unknown>> | null | undefined): InputField[] {
  const props = schema?.properties;
  if (props === null || typeof props !== "object") return [];
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(props as Record<string, unknown>).map(([name, p]) => ({
    name,
    ...typeAndText(p),
    required: required.has(name),
  }));
}

/** An output schema `{properties}` → output fields, nested `properties` flattened to dotted names. */
export function outputFields(schema: Readonly<Record<string, unknown>> | null | undefined, maxDepth = 4): IoField[] {
  const out: IoField[] = [];
  const walk = (props: unknown, prefix: string, depth: number) => {
    if (props === null || typeof props !== "object" || depth > maxDepth) return;
    for (const [name, p] of Object.entries(props as Record<string, unknown>)) {
      out.push({ name: prefix + name, ...typeAndText(p) });
      if (p !== null && typeof p === "object")
        walk((p as Record<string, unknown>).properties, `${prefix}${name}.`, depth + 1);
    }
  };
  walk(schema?.properties, "", 1);
  return out;
}

function typeAndText(p: unknown): { type?: string; description?: string } {
  if (p === null || typeof p !== "object") return {};
  const r = p as Record<string, unknown>;
  return {
    ...(typeof r.type === "string" ? { type: r.type } : {}),
    ...(typeof r.description === "string" ? { description: r.description } : {}),
  };
}
