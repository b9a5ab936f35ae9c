/**
 * Safe regular expressions for declared trigger patterns: a static ReDoS guard plus a linear-time matcher.
 *
 * Why both: V8's backtracking engine is exponential on nested quantifiers and polynomial on chains of
 * unbounded quantifiers. Measured here: the example trigger `fix.*(counting|…).*in.*(action|…)` (from the
 * trigger rules of docs/decisions/capability-scoring.md) takes
 * 0.8 s on 2,000 adversarial characters, and `\w+.*\w+.*\w+.*x` 1.6 s on 256. A static check cannot reject
 * those without rejecting such ordinary patterns, so patterns are parsed here and run on a Thompson NFA
 * (Pike-style set simulation): O(L · P) time for input length L and program size P, whatever the pattern.
 *
 * Static guard (rejected at compile/import time with a `SearchError` naming the pattern):
 *   too-long             source longer than `maxLength` (200) characters;
 *   invalid-pattern      not a valid JavaScript regular expression;
 *   backreference        \1…\9 or \k<name> (not regular; exponential in general);
 *   lookaround           (?=…), (?!…), (?<=…), (?<!…) (not supported by the linear matcher);
 *   nested-quantifier    a quantifier allowing > 1 repetition over a sub-pattern that itself contains an
 *                        unbounded quantifier: (a+)+, (a*)*, (\w+\s?){2,};
 *   overlapping-alternation
 *                        an unbounded quantifier over an alternation whose branches can start with the same
 *                        character, or with an empty branch: (a|a)*, (a|ab)+, (\w|\d)*, (a|)*. The first
 *                        character sets are compared on ASCII plus a few non-ASCII probes (a heuristic);
 *   unsupported-syntax   \c control escapes, flags-like groups;
 *   too-complex          the compiled program exceeds `maxProgram` (4,000) instructions (big {n,m} counts).
 * Matching is case-insensitive (a character matches a set when it, its lower case or its upper case is in
 * the set; negated classes fold before inverting, as ECMAScript does) with JavaScript's non-Unicode semantics: `.` excludes \n \r \u2028 \u2029; \w, \d,
 * \b are ASCII; ^ and $ are the input's ends. Laziness (`*?`) does not change whether a match exists.
 *
 * Sources: Thompson, "Regular expression search algorithm", CACM 11(6), 1968; Cox, "Regular expression
 * matching can be simple and fast" (2007); star-height / ambiguity heuristics as in the `safe-regex` and
 * `recheck` ReDoS checkers (Davis et al., "The impact of regular expression denial of service", FSE 2018).
 */
import { SearchError } from "./search-error.ts";

export const DEFAULTS = {
  maxLength: 200,
  maxProgram: 4000,
} as const;

export interface SafeRegexOptions {
  /** Longest accepted pattern source. Default 200. */
  readonly maxLength?: number;
  /** Largest compiled program (instructions). Default 4000. */
  readonly maxProgram?: number;
}

type Pred = (c: number) => boolean;

type Node =
  | { readonly t: "char"; readonly pred: Pred; readonly lit?: string }
  | { readonly t: "seq"; readonly items: readonly Node[] }
  | { readonly t: "alt"; readonly alts: readonly Node[] }
  | { readonly t: "repeat"; readonly body: Node; readonly min: number; readonly max: number }
  | { readonly t: "assert"; readonly kind: "^" | "$" | "b" | "B" };

type Inst =
  | { op: "char"; pred: Pred }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; x: number }
  | { op: "assert"; kind: "^" | "$" | "b" | "B" }
  | { op: "match" };

/** A compiled, checked pattern. */
export interface SafeRegex {
  readonly source: string;
  /** Thompson program. */
  readonly program: readonly Inst[];
  /**
   * The longest run of plain ASCII literal characters every match must contain (lowercase), or "" — a
   * prefilter: when the lowercased input lacks it, the NFA is not run.
   */
  readonly required: string;
  /**
   * Strings of which every match contains at least one (lowercase), or undefined when none is known — a
   * second prefilter that also covers alternations: `(deploy|release) now` needs "deploy" or "release".
   */
  readonly requiredAny: readonly string[] | undefined;
}

const MODULE = "safe-regex";

class Reject extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const isDigit: Pred = (c) => c >= 48 && c <= 57;
const isWord: Pred = (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isSpace: Pred = (c) =>
  c === 9 ||
  c === 10 ||
  c === 11 ||
  c === 12 ||
  c === 13 ||
  c === 32 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
const isLineTerminator = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
const not =
  (p: Pred): Pred =>
  (c) =>
    !p(c);
const eq =
  (x: number): Pred =>
  (c) =>
    c === x;

function lowerCode(c: number): number {
  if (c >= 65 && c <= 90) return c + 32;
  if (c < 128) return c;
  const l = String.fromCharCode(c).toLowerCase();
  return l.length === 1 ? l.charCodeAt(0) : c;
}
function upperCode(c: number): number {
  if (c >= 97 && c <= 122) return c - 32;
  if (c < 128) return c;
  const u = String.fromCharCode(c).toUpperCase();
  return u.length === 1 ? u.charCodeAt(0) : c;
}

/**
 * Case-insensitive membership: c matches a set when c, its lower case or its upper case is in it (for a
 * negated class the set is folded first, then inverted, as ECMAScript's CharacterSetMatcher does).
 */
const fold =
  (p: Pred): Pred =>
  (c) =>
    p(c) || p(lowerCode(c)) || p(upperCode(c));

function classEscape(ch: string): Pred | undefined {
  switch (ch) {
    case "d":
      return isDigit;
    case "D":
      return not(isDigit);
    case "w":
      return isWord;
    case "W":
      return not(isWord);
    case "s":
      return isSpace;
    case "S":
      return not(isSpace);
    default:
      return undefined;
  }
}

/** Recursive-descent parser for the supported subset of JavaScript (non-Unicode) regex syntax. */
class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): Node {
    const n = this.alternation();
    if (this.i < this.s.length) throw new Reject("invalid-pattern", `unexpected '${this.s[this.i]}' at ${this.i}`);
    return n;
  }

  private alternation(): Node {
    const alts = [this.sequence()];
    while (this.s[this.i] === "|") {
      this.i++;
      alts.push(this.sequence());
    }
    return alts.length === 1 ? alts[0]! : { t: "alt", alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.s.length && this.s[this.i] !== "|" && this.s[this.i] !== ")") {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0]! : { t: "seq", items };
  }

  private quantified(atom: Node): Node {
    const s = this.s;
    let node = atom;
    for (;;) {
      const c = s[this.i];
      let min: number;
      let max: number;
      if (c === "*") [min, max] = [0, Number.POSITIVE_INFINITY];
      else if (c === "+") [min, max] = [1, Number.POSITIVE_INFINITY];
      else if (c === "?") [min, max] = [0, 1];
      else if (c === "{") {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i));
        if (!m) return node; // a literal "{" in non-Unicode mode is handled by atom()
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === "" ? Number.POSITIVE_INFINITY : Number(m[3]);
        this.i += m[0].length - 1;
      } else return node;
      this.i++;
      if (s[this.i] === "?") this.i++; // lazy: same language
      if (node.t === "assert") throw new Reject("invalid-pattern", `quantifier on an assertion at ${this.i}`);
      node = { t: "repeat", body: node, min, max };
    }
  }

  private atom(): Node {
    const s = this.s;
    const c = s[this.i]!;
    if (c === "(") {
      this.i++;
      if (s.startsWith("?:", this.i)) this.i += 2;
      else if (
        s.startsWith("?=", this.i) ||
        s.startsWith("?!", this.i) ||
        s.startsWith("?<=", this.i) ||
        s.startsWith("?<!", this.i)
      ) {
        throw new Reject("lookaround", `lookaround group at ${this.i - 1} is not supported`);
      } else if (s.startsWith("?<", this.i)) {
        const end = s.indexOf(">", this.i);
        if (end < 0) throw new Reject("invalid-pattern", `unterminated group name at ${this.i}`);
        this.i = end + 1;
      } else if (s[this.i] === "?") throw new Reject("unsupported-syntax", `group modifier at ${this.i - 1}`);
      const body = this.alternation();
      if (s[this.i] !== ")") throw new Reject("invalid-pattern", `unterminated group`);
      this.i++;
      return body;
    }
    if (c === "[") return this.charClass();
    if (c === ".") {
      this.i++;
      return { t: "char", pred: (x) => !isLineTerminator(x) };
    }
    if (c === "^" || c === "$") {
      this.i++;
      return { t: "assert", kind: c };
    }
    if (c === "\\") {
      const e = s[this.i + 1];
      if (e === undefined) throw new Reject("invalid-pattern", "trailing backslash");
      if (e === "b" || e === "B") {
        this.i += 2;
        return { t: "assert", kind: e };
      }
      if (/[1-9]/.test(e) || (e === "k" && s[this.i + 2] === "<"))
        throw new Reject("backreference", `backreference \\${e} at ${this.i}`);
      return { t: "char", pred: fold(this.escape(false)) };
    }
    if (c === "*" || c === "+" || c === "?") throw new Reject("invalid-pattern", `nothing to repeat at ${this.i}`);
    this.i++;
    const code = c.charCodeAt(0);
    return code < 128 ? { t: "char", pred: fold(eq(code)), lit: c.toLowerCase() } : { t: "char", pred: fold(eq(code)) };
  }

  /** Parses an escape at this.i (the backslash) and returns its predicate. */
  private escape(inClass: boolean): Pred {
    const s = this.s;
    const e = s[this.i + 1]!;
    this.i += 2;
    const cls = classEscape(e);
    if (cls) return cls;
    switch (e) {
      case "t":
        return eq(9);
      case "n":
        return eq(10);
      case "v":
        return eq(11);
      case "f":
        return eq(12);
      case "r":
        return eq(13);
      case "0":
        return eq(0);
      case "b":
        if (inClass) return eq(8);
        break;
      case "c":
        throw new Reject("unsupported-syntax", `control escape \\c at ${this.i - 2}`);
      case "x": {
        const m = /^[0-9a-fA-F]{2}/.exec(s.slice(this.i));
        if (m) {
          this.i += 2;
          return eq(Number.parseInt(m[0], 16));
        }
        return eq(120);
      }
      case "u": {
        const m = /^[0-9a-fA-F]{4}/.exec(s.slice(this.i));
        if (m) {
          this.i += 4;
          return eq(Number.parseInt(m[0], 16));
        }
        return eq(117);
      }
    }
    return eq(e.charCodeAt(0));
  }

  private charClass(): Node {
    const s = this.s;
    this.i++;
    let negate = false;
    if (s[this.i] === "^") {
      negate = true;
      this.i++;
    }
    const preds: Pred[] = [];
    while (this.i < s.length && s[this.i] !== "]") {
      const lo = this.classAtom();
      if (s[this.i] === "-" && s[this.i + 1] !== "]" && this.i + 1 < s.length) {
        this.i++;
        const hi = this.classAtom();
        if (lo.code === undefined || hi.code === undefined) {
          // A class escape in a range is literal "-" plus both sets in non-Unicode mode.
          preds.push(lo.pred, eq(45), hi.pred);
          continue;
        }
        if (lo.code > hi.code) throw new Reject("invalid-pattern", `range out of order in character class`);
        const a = lo.code;
        const b = hi.code;
        preds.push((x) => x >= a && x <= b);
      } else preds.push(lo.pred);
    }
    if (s[this.i] !== "]") throw new Reject("invalid-pattern", "unterminated character class");
    this.i++;
    const any = fold((x) => preds.some((p) => p(x)));
    return { t: "char", pred: negate ? not(any) : any };
  }

  private classAtom(): { pred: Pred; code?: number } {
    const s = this.s;
    if (s[this.i] === "\\") {
      const e = s[this.i + 1];
      if (e !== undefined && classEscape(e)) return { pred: this.escape(true) };
      const start = this.i;
      const pred = this.escape(true);
      // Recover the code point of a single-character escape for ranges.
      const probe = s.slice(start, this.i);
      const code = singleCode(probe);
      return code === undefined ? { pred } : { pred, code };
    }
    const code = s.charCodeAt(this.i);
    this.i++;
    return { pred: eq(code), code };
  }
}

function singleCode(esc: string): number | undefined {
  const e = esc[1]!;
  const map: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, "0": 0, b: 8 };
  if (map[e] !== undefined) return map[e];
  if (e === "x" && esc.length === 4) return Number.parseInt(esc.slice(2), 16);
  if (e === "u" && esc.length === 6) return Number.parseInt(esc.slice(2), 16);
  return esc.length === 2 ? e.charCodeAt(0) : undefined;
}

// ── static analysis ─────────────────────────────────────────────────────────────────────────────────────

function containsUnbounded(n: Node): boolean {
  switch (n.t) {
    case "repeat":
      return n.max === Number.POSITIVE_INFINITY || containsUnbounded(n.body);
    case "seq":
      return n.items.some(containsUnbounded);
    case "alt":
      return n.alts.some(containsUnbounded);
    default:
      return false;
  }
}

function nullable(n: Node): boolean {
  switch (n.t) {
    case "char":
      return false;
    case "assert":
      return true;
    case "repeat":
      return n.min === 0 || nullable(n.body);
    case "seq":
      return n.items.every(nullable);
    case "alt":
      return n.alts.some(nullable);
  }
}

/** Probe characters for first-set overlap: ASCII plus a few non-ASCII letters, spaces and terminators. */
const PROBES: number[] = [...Array.from({ length: 128 }, (_, k) => k), 0xe9, 0xdf, 0x3b1, 0x4e2d, 0xa0, 0x2028, 0x3000];

function firstSet(n: Node): Set<number> {
  const out = new Set<number>();
  const add = (m: Node): boolean => {
    // Returns true when m is nullable (so the next item's first set also counts).
    switch (m.t) {
      case "char":
        for (const c of PROBES) if (m.pred(c)) out.add(c);
        return false;
      case "assert":
        return true;
      case "repeat": {
        const bodyNullable = add(m.body);
        return m.min === 0 || bodyNullable;
      }
      case "seq":
        for (const it of m.items) if (!add(it)) return false;
        return true;
      case "alt": {
        let any = false;
        for (const a of m.alts) if (add(a)) any = true;
        return any;
      }
    }
  };
  add(n);
  return out;
}

function checkNode(n: Node): void {
  if (n.t === "repeat") {
    if (n.max > 1 && containsUnbounded(n.body)) {
      throw new Reject("nested-quantifier", "a repeated sub-pattern contains an unbounded quantifier");
    }
    if (n.max === Number.POSITIVE_INFINITY) {
      const alt = topAlternation(n.body);
      if (alt) {
        if (alt.alts.some(nullable))
          throw new Reject("overlapping-alternation", "an empty branch under an unbounded quantifier");
        const sets = alt.alts.map(firstSet);
        for (let a = 0; a < sets.length; a++) {
          for (let b = a + 1; b < sets.length; b++) {
            for (const c of sets[a]!) {
              if (sets[b]!.has(c)) {
                throw new Reject(
                  "overlapping-alternation",
                  `branches ${a + 1} and ${b + 1} of a repeated alternation can both start with ${JSON.stringify(String.fromCharCode(c))}`,
                );
              }
            }
          }
        }
      }
    }
    checkNode(n.body);
  } else if (n.t === "seq") n.items.forEach(checkNode);
  else if (n.t === "alt") n.alts.forEach(checkNode);
}

function topAlternation(n: Node): Extract<Node, { t: "alt" }> | undefined {
  if (n.t === "alt") return n;
  if (n.t === "seq" && n.items.length === 1) return topAlternation(n.items[0]!);
  return undefined;
}

// ── compilation and matching ────────────────────────────────────────────────────────────────────────────

function compile(root: Node, maxProgram: number): Inst[] {
  const prog: Inst[] = [];
  const emit = (inst: Inst): number => {
    if (prog.length >= maxProgram)
      throw new Reject("too-complex", `compiled program exceeds ${maxProgram} instructions`);
    prog.push(inst);
    return prog.length - 1;
  };
  const gen = (n: Node): void => {
    switch (n.t) {
      case "char":
        emit({ op: "char", pred: n.pred });
        return;
      case "assert":
        emit({ op: "assert", kind: n.kind });
        return;
      case "seq":
        n.items.forEach(gen);
        return;
      case "alt": {
        const jumps: number[] = [];
        for (let k = 0; k < n.alts.length - 1; k++) {
          const split = emit({ op: "split", x: 0, y: 0 });
          (prog[split] as { x: number }).x = prog.length;
          gen(n.alts[k]!);
          jumps.push(emit({ op: "jmp", x: 0 }));
          (prog[split] as { y: number }).y = prog.length;
        }
        gen(n.alts[n.alts.length - 1]!);
        for (const j of jumps) (prog[j] as { x: number }).x = prog.length;
        return;
      }
      case "repeat": {
        for (let k = 0; k < n.min; k++) gen(n.body);
        if (n.max === Number.POSITIVE_INFINITY) {
          const split = emit({ op: "split", x: 0, y: 0 });
          (prog[split] as { x: number }).x = prog.length;
          gen(n.body);
          emit({ op: "jmp", x: split });
          (prog[split] as { y: number }).y = prog.length;
        } else {
          const splits: number[] = [];
          for (let k = n.min; k < n.max; k++) {
            const split = emit({ op: "split", x: 0, y: 0 });
            (prog[split] as { x: number }).x = prog.length;
            splits.push(split);
            gen(n.body);
          }
          for (const sp of splits) (prog[sp] as { y: number }).y = prog.length;
        }
        return;
      }
    }
  };
  gen(root);
  emit({ op: "match" });
  return prog;
}

/** Most alternatives kept in a `requiredAny` set (more makes the prefilter slower than it is useful). */
const MAX_REQUIRED_ANY = 64;

/** Better prefilter: the longer shortest string, then fewer strings. */
function betterFactor(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (!a) return b;
  if (!b) return a;
  const ma = Math.min(...a.map((x) => x.length));
  const mb = Math.min(...b.map((x) => x.length));
  if (ma !== mb) return ma > mb ? a : b;
  return a.length <= b.length ? a : b;
}

/** Strings of which every match of `n` contains one (see SafeRegex.requiredAny), or undefined. */
function requiredAny(n: Node): string[] | undefined {
  switch (n.t) {
    case "char":
      return n.lit !== undefined ? [n.lit] : undefined;
    case "assert":
      return undefined;
    case "repeat":
      return n.min >= 1 ? requiredAny(n.body) : undefined;
    case "alt": {
      const out = new Set<string>();
      for (const b of n.alts) {
        const f = requiredAny(b);
        if (!f) return undefined;
        for (const x of f) out.add(x);
        if (out.size > MAX_REQUIRED_ANY) return undefined;
      }
      return [...out];
    }
    case "seq": {
      let best: string[] | undefined;
      let run = "";
      for (const it of n.items) {
        if (it.t === "char" && it.lit !== undefined) {
          run += it.lit;
          continue;
        }
        if (run) best = betterFactor(best, [run]);
        run = "";
        best = betterFactor(best, requiredAny(it));
      }
      if (run) best = betterFactor(best, [run]);
      return best;
    }
  }
}

/** True when the lowercased input passes both literal prefilters (the NFA may still find no match). */
export function mayMatch(re: SafeRegex, lowerInput: string): boolean {
  if (re.required.length > 0 && !lowerInput.includes(re.required)) return false;
  if (re.requiredAny !== undefined && !re.requiredAny.some((x) => lowerInput.includes(x))) return false;
  return true;
}

/** Work of one NFA run on an input of `length` characters: length × program size (the matcher's bound). */
export function matchCost(re: SafeRegex, length: number): number {
  return (length + 1) * re.program.length;
}

/** Longest run of consecutive unquantified ASCII literals in the top-level sequence (all matches contain it). */
function requiredLiteral(root: Node): string {
  const items = root.t === "seq" ? root.items : [root];
  let best = "";
  let run = "";
  for (const it of items) {
    if (it.t === "char" && it.lit !== undefined) {
      run += it.lit;
      if (run.length > best.length) best = run;
    } else run = "";
  }
  return best;
}

/** Why a pattern is rejected, or undefined when it is safe (does not throw). */
export function patternProblem(
  source: string,
  options: SafeRegexOptions = {},
): { code: string; message: string } | undefined {
  try {
    compileSafeRegex(source, options);
    return undefined;
  } catch (e) {
    if (e instanceof SearchError) return { code: e.code, message: e.message };
    throw e;
  }
}

/** Parses, checks and compiles a pattern; throws `SearchError` (code per the header) naming the pattern. */
export function compileSafeRegex(source: string, options: SafeRegexOptions = {}): SafeRegex {
  const maxLength = options.maxLength ?? DEFAULTS.maxLength;
  const maxProgram = options.maxProgram ?? DEFAULTS.maxProgram;
  const fail = (code: string, why: string): never => {
    throw new SearchError(MODULE, code, `pattern ${JSON.stringify(source)} rejected (${code}): ${why}`);
  };
  if (typeof source !== "string" || source.length === 0) fail("invalid-pattern", "empty pattern");
  if (source.length > maxLength) fail("too-long", `${source.length} characters > ${maxLength}`);
  try {
    new RegExp(source, "i");
  } catch (e) {
    fail("invalid-pattern", (e as Error).message);
  }
  try {
    const ast = new Parser(source).parse();
    checkNode(ast);
    return { source, program: compile(ast, maxProgram), required: requiredLiteral(ast), requiredAny: requiredAny(ast) };
  } catch (e) {
    if (e instanceof Reject) return fail(e.code, e.message);
    throw e;
  }
}

/**
 * True when the pattern matches somewhere in `input` (case-insensitive). Required-literal prefilters
 * (`mayMatch`: `includes` on the lowercased input), then a Thompson NFA set simulation: O(input length × program size),
 * no backtracking.
 */
export function safeTest(re: SafeRegex, input: string): boolean {
  if (!mayMatch(re, input.toLowerCase())) return false;
  const prog = re.program;
  const P = prog.length;
  const L = input.length;
  let cur = new Int32Array(P);
  let next = new Int32Array(P);
  let curN = 0;
  let nextN = 0;
  const mark = new Int32Array(P).fill(-1);
  const stack = new Int32Array(P * 2 + 4);
  const isWordAt = (i: number) => i >= 0 && i < L && isWord(input.charCodeAt(i));
  // Adds pc and its ε-closure at position pos into `list` after `count` entries; returns the new count, or
  // −1 when MATCH is reachable.
  const addClosure = (list: Int32Array, count: number, pc0: number, pos: number, gen: number): number => {
    let sp = 0;
    stack[sp++] = pc0;
    let n = count;
    while (sp > 0) {
      const pc = stack[--sp]!;
      if (mark[pc] === gen) continue;
      mark[pc] = gen;
      const inst = prog[pc]!;
      switch (inst.op) {
        case "jmp":
          stack[sp++] = inst.x;
          break;
        case "split":
          stack[sp++] = inst.y;
          stack[sp++] = inst.x;
          break;
        case "assert": {
          let ok: boolean;
          if (inst.kind === "^") ok = pos === 0;
          else if (inst.kind === "$") ok = pos === L;
          else {
            const boundary = isWordAt(pos - 1) !== isWordAt(pos);
            ok = inst.kind === "b" ? boundary : !boundary;
          }
          if (ok) stack[sp++] = pc + 1;
          break;
        }
        case "match":
          return -1;
        case "char":
          list[n++] = pc;
          break;
      }
    }
    return n;
  };
  let gen = 0;
  for (let pos = 0; pos <= L; pos++) {
    // Unanchored search: a new thread starts at every position.
    curN = addClosure(cur, curN, 0, pos, gen);
    if (curN < 0) return true;
    if (pos === L) break;
    const ch = input.charCodeAt(pos);
    gen++;
    nextN = 0;
    for (let k = 0; k < curN; k++) {
      const pc = cur[k]!;
      if ((prog[pc] as { pred: Pred }).pred(ch)) {
        nextN = addClosure(next, nextN, pc + 1, pos + 1, gen);
        if (nextN < 0) return true;
      }
    }
    const tmp = cur;
    cur = next;
    next = tmp;
    curN = nextN;
  }
  return false;
}
