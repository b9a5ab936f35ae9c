/** Request filters shared by the jobs: safety tags, and the project's configured fallback tools. */
import { projectConfig } from "../store/projects.ts";
import type { GraphSnapshot } from "../snapshot/graph-snapshot.ts";
import type { Engine } from "./engine.ts";

/** A predicate that is true for tools carrying any of the excluded safety tags (never returned, even named). */
export function safetyFilter(s: GraphSnapshot, tags: readonly string[] | undefined): (i: number) => boolean {
  if (!tags || tags.length === 0) return () => false;
  const bad = new Set(tags.map((t) => t.toLowerCase()));
  return (i) => s.tools[i]!.safetyTags.some((t) => bad.has(t.toLowerCase()));
}

/** The tools offered instead when the gate abstains (seed 002 fallbacks): project config `fallbackTools`. */
export async function projectFallbacks(engine: Engine, project: string): Promise<string[]> {
  const cfg = await projectConfig(engine.db, project);
  return Array.isArray(cfg.fallbackTools) ? cfg.fallbackTools.filter((t): t is string => typeof t === "string") : [];
}
