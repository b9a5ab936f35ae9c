/** Request filters shared by the jobs: safety tags, and the project's configured fallback tools. */
import { type ProjectConfig, projectConfig } from "../store/projects.ts";
import type { Engine } from "./engine.ts";
import type { GraphSnapshot } from "./graph-snapshot.ts";

/**
 * A predicate that is true for tools carrying any of the excluded safety tags, and for unavailable tools
 * (their upstream MCP server stopped listing them): never returned, even named.
 */
export function safetyFilter(s: GraphSnapshot, tags: readonly string[] | undefined): (i: number) => boolean {
  const gone = s.unavailable > 0;
  if (!tags || tags.length === 0) return gone ? (i) => !s.tools[i]!.available : () => false;
  const bad = new Set(tags.map((t) => t.toLowerCase()));
  return (i) => (gone && !s.tools[i]!.available) || s.tools[i]!.safetyTags.some((t) => bad.has(t.toLowerCase()));
}

/** True when `safetyFilter` can exclude anything for these tags (so a search can skip the predicate). */
export function filtersAnything(s: GraphSnapshot, tags: readonly string[] | undefined): boolean {
  return s.unavailable > 0 || (tags?.length ?? 0) > 0;
}

/** The project's configuration, re-read at most once per second (configuration, not graph data). */
export async function cachedProjectConfig(engine: Engine, project: string): Promise<ProjectConfig> {
  const hit = cachedProjectConfigNow(engine, project);
  if (hit) return hit;
  const config = await projectConfig(engine.db, project);
  engine.projectConfigs.set(project, { at: performance.now(), config });
  return config;
}

/** The cached configuration while it is fresh (under a second old), else undefined: await cachedProjectConfig then. */
export function cachedProjectConfigNow(engine: Engine, project: string): ProjectConfig | undefined {
  const hit = engine.projectConfigs.get(project);
  return hit && performance.now() - hit.at < 1000 ? hit.config : undefined;
}

/** Forgets the cached configuration after this engine changed it. */
export function forgetProjectConfig(engine: Engine, project: string): void {
  engine.projectConfigs.delete(project);
}

/** The tools offered instead when the gate abstains (fallback to general tools): project config `fallbackTools`. */
export async function projectFallbacks(engine: Engine, project: string): Promise<string[]> {
  return projectFallbacksNow(engine, project) ?? fallbacksOf(await cachedProjectConfig(engine, project));
}

/** The project's fallback tools from a fresh cached configuration, without I/O, else undefined: await projectFallbacks then. */
export function projectFallbacksNow(engine: Engine, project: string): string[] | undefined {
  const cfg = cachedProjectConfigNow(engine, project);
  return cfg ? fallbacksOf(cfg) : undefined;
}

/** The fallback tools of a project configuration (its `fallbackTools` strings). */
export function fallbacksOf(cfg: ProjectConfig): string[] {
  return Array.isArray(cfg.fallbackTools) ? cfg.fallbackTools.filter((t): t is string => typeof t === "string") : [];
}
