/**
 * The user's cache directory, shared by every project and process of this user: TOOLGRAPH_CACHE_DIR, else
 * $XDG_CACHE_HOME/toolgraph, else ~/.cache/toolgraph. It holds the embedded database's start-up template
 * (pglite-template.ts) and, for `memory://` projects (which keep nothing of their own), a local model's answers
 * call by call (src/embeddings/call-store.ts), so a second open of the same tools needs no model. Why and what
 * it saves: docs/decisions/everyday-budget.md.
 *
 * The model's answers are files under `<cache dir>/toolgraph-cache/embed-calls/`, kept as the data directory's
 * cache keeps its own (data-dir-cache.ts: one file per key holding the key, written whole and renamed, at most
 * 1,000 files, the oldest removed first, best effort). Nothing here creates the directory until a first write.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { EmbeddingCallStore } from "../embeddings/call-store.ts";
import { DataDirCache } from "./data-dir-cache.ts";

/** The cache directory: TOOLGRAPH_CACHE_DIR, else $XDG_CACHE_HOME/toolgraph, else ~/.cache/toolgraph. */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TOOLGRAPH_CACHE_DIR) return env.TOOLGRAPH_CACHE_DIR;
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), ".cache"), "toolgraph");
}

const KIND = "embed-calls";

/** A local model's answers in the user's cache directory (reads and writes best effort, never throwing). */
export function userEmbeddingStore(env: NodeJS.ProcessEnv = process.env): EmbeddingCallStore {
  const dir = userCacheDir(env);
  const cache = new DataDirCache(dir);
  let made = false;
  return {
    get: (key) => cache.read(KIND, key),
    set: (key, bytes) => {
      if (!made) {
        try {
          mkdirSync(dir, { recursive: true });
        } catch {
          return; // an unwritable cache only loses the gain
        }
        made = true;
      }
      cache.write(KIND, key, bytes);
    },
  };
}
