/**
 * Guard (project brief: "No module-level caches: derived state hangs off the versioned view"): no module of
 * src/ declares a Map, Set, WeakMap or WeakSet at its top level, except the constant lookup tables listed
 * here. Derived state belongs on the view (GraphSnapshot.derived, SearchIndex.derived, MemoryIndex.derived:
 * src/view/derived.ts); per-engine state belongs on the Engine as fields.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SRC = join(ROOT, "src");

/** Constant lookup tables (filled once at load, never written): `file: name`. */
const ALLOWED = new Set([
  "src/contract/error-mapping.ts: BAD_INPUT_CODES",
  "src/contract/error-mapping.ts: NOT_FOUND_CODES",
  "src/contract/error-mapping.ts: UNAVAILABLE_CODES",
  "src/contract/error-mapping.ts: DATABASE_CONFIG_SQLSTATES",
  "src/contract/database-errors.ts: UNREACHABLE_SQLSTATES",
  "src/contract/database-errors.ts: UNREACHABLE_ERRNOS",
  "src/store/migrate.ts: CATALOG_RACE_CODES",
  "src/mcp/origin.ts: LOOPBACK_HOSTS",
  "src/jobs/live-metrics.ts: ACCEPTED_DECISIONS",
  "src/jobs/recommendation-log.ts: REQUEST_FIELDS",
  "src/gateway/session-policy.ts: EXCLUDING",
]);

/** A top-level declaration (no indentation) whose value is a new Map/Set/WeakMap/WeakSet. */
const DECLARATION = /^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\b[^=\n]*=\s*new\s+(?:Weak)?(?:Map|Set)\b/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [p] : [];
  });
}

function moduleCollections(): string[] {
  const found: string[] = [];
  for (const file of sources(SRC)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(DECLARATION)) found.push(`${relative(ROOT, file)}: ${m[1]}`);
  }
  return found.sort();
}

describe("no module-level caches in src/", () => {
  it("declares no top-level Map/Set/WeakMap/WeakSet except the listed constant tables", () => {
    expect(moduleCollections().filter((x) => !ALLOWED.has(x))).toEqual([]);
  });

  it("every listed table still exists (the list stays exact)", () => {
    const found = new Set(moduleCollections());
    expect([...ALLOWED].filter((x) => !found.has(x))).toEqual([]);
  });

  it("the scan finds a module-level cache when there is one", () => {
    const text =
      'import x from "y";\nconst cache = new WeakMap<object, number>();\nexport let seen: Set<string> = new Set();\n  const local = new Map();\n';
    expect([...text.matchAll(DECLARATION)].map((m) => m[1])).toEqual(["cache", "seen"]);
  });
});
