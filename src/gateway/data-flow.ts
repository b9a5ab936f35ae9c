/**
 * Data-flow evidence between the calls of one execution: step j depends on an earlier step i when one of
 * j's argument values is a value that i *returned* — real evidence that i's output fed j, stronger than
 * mere succession.
 *
 * Precisely:
 * - Candidate values of a call's arguments are its leaves (recursively through arrays and objects, at most
 *   `maxValues` of them): strings of at least `minStringLength` characters after trimming, and finite
 *   numbers whose decimal text has at least `minNumberDigits` characters (so flags, counters and indices
 *   0-9 never count).
 * - What a step returned is its result's `structuredContent` leaves (strings and numbers, as above) and the
 *   text of its `text` content blocks (the first `maxTextChars` characters).
 * - A string value matches step i when it equals a string leaf of i's structuredContent, or occurs in i's
 *   text at word boundaries (the characters either side are not letters or digits). A number matches when
 *   it equals a number leaf, or its decimal text occurs in i's text at word boundaries.
 * - Echoes do not count: a value that also appears among step i's own argument values was the caller's,
 *   not i's output, and matches nothing of i.
 * - Steps that failed (isError, exception, timeout) returned nothing usable and are never depended on.
 */

export const DATA_FLOW_DEFAULTS = {
  minStringLength: 4,
  minNumberDigits: 2,
  maxValues: 256,
  maxTextChars: 65_536,
} as const;

export interface DataFlowOptions {
  /** Shortest string argument that counts as data. Default 4. */
  minStringLength?: number;
  /** Fewest characters in a number's decimal text for it to count. Default 2. */
  minNumberDigits?: number;
  /** Most leaf values read from one argument object or result. Default 256. */
  maxValues?: number;
  /** Most characters of a result's text searched. Default 65 536. */
  maxTextChars?: number;
}

/** What one step's result offers to later steps, extracted once. */
export interface StepOutput {
  strings: Set<string>;
  numbers: Set<number>;
  text: string;
  /** The step's own argument values (echoes of these are not its output). */
  echoes: Set<string>;
}

type Opts = Required<DataFlowOptions>;

function opts(o: DataFlowOptions | undefined): Opts {
  return {
    minStringLength: o?.minStringLength ?? DATA_FLOW_DEFAULTS.minStringLength,
    minNumberDigits: o?.minNumberDigits ?? DATA_FLOW_DEFAULTS.minNumberDigits,
    maxValues: o?.maxValues ?? DATA_FLOW_DEFAULTS.maxValues,
    maxTextChars: o?.maxTextChars ?? DATA_FLOW_DEFAULTS.maxTextChars,
  };
}

/** The candidate leaf values of a JSON value: strings (trimmed) and numbers that are long enough to count. */
export function leafValues(value: unknown, options?: DataFlowOptions): (string | number)[] {
  const o = opts(options);
  const out: (string | number)[] = [];
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0 && out.length < o.maxValues && seen < o.maxValues * 16) {
    const v = stack.pop();
    seen++;
    if (typeof v === "string") {
      const s = v.trim();
      if (s.length >= o.minStringLength) out.push(s);
    } else if (typeof v === "number") {
      if (Number.isFinite(v) && String(v).length >= o.minNumberDigits) out.push(v);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (v !== null && typeof v === "object") {
      const vals = Object.values(v as Record<string, unknown>);
      for (let i = vals.length - 1; i >= 0; i--) stack.push(vals[i]);
    }
  }
  return out;
}

const key = (v: string | number) => (typeof v === "number" ? `n:${v}` : `s:${v}`);

/** Extracts what a step returned (and its own arguments, to recognise echoes). */
export function stepOutput(args: unknown, result: { content?: unknown; structuredContent?: unknown } | undefined, options?: DataFlowOptions): StepOutput {
  const o = opts(options);
  const strings = new Set<string>();
  const numbers = new Set<number>();
  for (const v of leafValues(result?.structuredContent, o)) {
    if (typeof v === "number") numbers.add(v);
    else strings.add(v);
  }
  let text = "";
  if (Array.isArray(result?.content)) {
    for (const block of result.content as { type?: unknown; text?: unknown }[]) {
      if (text.length >= o.maxTextChars) break;
      if (block?.type === "text" && typeof block.text === "string") text += `${text ? "\n" : ""}${block.text}`;
    }
  }
  return { strings, numbers, text: text.slice(0, o.maxTextChars), echoes: new Set(leafValues(args, o).map(key)) };
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}]/u.test(c);
}

/** True when `needle` occurs in `hay` with no letter or digit right before or after it. */
export function occursAsWord(hay: string, needle: string): boolean {
  if (needle.length === 0) return false;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = at > 0 ? hay[at - 1] : undefined;
    const after = hay[at + needle.length];
    // A needle that itself starts (ends) with a non-word character needs no boundary on that side.
    const okBefore = !isWordChar(needle[0]) || !isWordChar(before);
    const okAfter = !isWordChar(needle[needle.length - 1]) || !isWordChar(after);
    if (okBefore && okAfter) return true;
  }
  return false;
}

function matches(v: string | number, out: StepOutput): boolean {
  if (out.echoes.has(key(v))) return false;
  if (typeof v === "number") return out.numbers.has(v) || occursAsWord(out.text, String(v));
  return out.strings.has(v) || occursAsWord(out.text, v);
}

/**
 * Indices of the earlier steps whose output one of `args`' values came from (ascending). `earlier[i]` is
 * step i's output, or undefined for a failed step.
 */
export function dataFlowDependencies(args: unknown, earlier: readonly (StepOutput | undefined)[], options?: DataFlowOptions): number[] {
  const values = leafValues(args, options);
  if (values.length === 0) return [];
  const deps: number[] = [];
  for (let i = 0; i < earlier.length; i++) {
    const out = earlier[i];
    if (out && values.some((v) => matches(v, out))) deps.push(i);
  }
  return deps;
}
