/**
 * Reading JSON text at the boundary with a nesting bound, so nothing recursive ever sees a deep value.
 *
 * `JSON.parse` itself is iterative in V8 (a 1,000,000-deep array parses), but much of what follows a parse
 * recurses: `JSON.stringify` overflows the stack near 4,000 levels (less deep inside a request handler), and
 * so would any schema or walker written recursively. Every door's reader therefore scans the text first
 * (one pass over its characters, strings skipped, no allocation) and refuses a document nested deeper than
 * LIMITS.documentDepth levels with the JSON path of the first container past the bound; only then is the
 * text parsed. Why 128: docs/decisions/json-nesting.md.
 */
import { LIMITS } from "./limits.ts";

export interface JsonTextProblem {
  /** Offset (UTF-16 units, from the start of `text`) of the problem. */
  index: number;
  /** JSON path of the offending value inside the document ([] for the whole document). */
  path: (string | number)[];
  message: string;
}

export type JsonTextResult = { ok: true; value: unknown } | { ok: false; problem: JsonTextProblem };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/** The message of a document nested past `maxDepth` (the same words as a stored value's bound, jsonProblem). */
export function tooDeepMessage(maxDepth: number): string {
  return `is nested deeper than ${maxDepth} levels`;
}

/**
 * Where `text` first opens a container past `maxDepth` levels (the outermost value is level 1), or undefined.
 * Malformed text is not judged here (JSON.parse reports it); only its brackets outside strings are counted.
 */
export function jsonTextDepthProblem(
  text: string,
  maxDepth: number = LIMITS.documentDepth,
): JsonTextProblem | undefined {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return { index: i, path: jsonPathAt(text, i), message: tooDeepMessage(maxDepth) };
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return undefined;
}

/** Offset of the quote closing the string opened at `open` (text.length when unterminated). */
function stringEnd(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    // Escaped when an odd number of backslashes precede it.
    let k = at - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((at - 1 - k) % 2 === 0) return at;
  }
}

interface Frame {
  array: boolean;
  /** Arrays: the index of the current element. */
  index: number;
  /** Objects: the key of the current member. */
  key: string;
  /** Objects: the next string is a key. */
  expectKey: boolean;
}

/**
 * The JSON path of the value that starts at offset `at` (read only when a problem is found, so it may allocate).
 * Best effort on malformed text: brackets and commas outside strings decide it.
 */
function jsonPathAt(text: string, at: number): (string | number)[] {
  const frames: Frame[] = [];
  for (let i = 0; i < at; i++) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (c === QUOTE) {
      const start = i;
      i = stringEnd(text, i);
      if (top && !top.array && top.expectKey) {
        const raw = text.slice(start, i + 1);
        try {
          top.key = String(JSON.parse(raw));
        } catch {
          top.key = raw.slice(1, -1);
        }
        top.expectKey = false;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      frames.push({ array: c === OPEN_ARRAY, index: 0, key: "", expectKey: c === OPEN_OBJECT });
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) frames.pop();
    else if (c === COMMA && top) {
      if (top.array) top.index++;
      else top.expectKey = true;
    }
  }
  return frames.map((f) => (f.array ? f.index : f.key));
}

/**
 * The same bound on a value already parsed by someone else (the MCP SDK over stdio hands tool arguments over
 * as objects): the first container past `maxDepth` levels, with its path, or undefined. Iterative; a path is
 * built only for the value reported.
 */
export function jsonValueDepthProblem(
  value: unknown,
  maxDepth: number = LIMITS.documentDepth,
): JsonTextProblem | undefined {
  // Each entry: the value, its depth, and the entry (index in `seen`) and key it hangs from.
  const seen: { v: unknown; depth: number; parent: number; key: string | number }[] = [
    { v: value, depth: 1, parent: -1, key: "" },
  ];
  const todo: number[] = [0];
  while (todo.length > 0) {
    const at = todo.pop()!;
    const { v, depth } = seen[at]!;
    if (v === null || typeof v !== "object") continue;
    if (depth > maxDepth) {
      const path: (string | number)[] = [];
      for (let e = seen[at]!; e.parent >= 0; e = seen[e.parent]!) path.push(e.key);
      return { index: 0, path: path.reverse(), message: tooDeepMessage(maxDepth) };
    }
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    // Pushed last to first, so the first container past the bound in document order is the one reported.
    for (let k = entries.length - 1; k >= 0; k--) {
      const [key, x] = entries[k]!;
      if (x === null || typeof x !== "object") continue;
      seen.push({ v: x, depth: depth + 1, parent: at, key });
      todo.push(seen.length - 1);
    }
  }
  return undefined;
}

/**
 * Parses JSON text no deeper than `maxDepth`: the value, or the problem (too deep, with its path; malformed,
 * with JSON.parse's message and position). Never throws.
 */
export function parseJsonText(text: string, maxDepth: number = LIMITS.documentDepth): JsonTextResult {
  const deep = jsonTextDepthProblem(text, maxDepth);
  if (deep) return { ok: false, problem: deep };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const message = (err as Error).message;
    const pos = /position (\d+)/.exec(message);
    return {
      ok: false,
      problem: { index: pos ? Number(pos[1]) : 0, path: [], message: `malformed JSON (${message})` },
    };
  }
}
