/**
 * Small results that a later process may reuse, kept in the embedded data directory (`<dir>/toolgraph-cache/
 * <kind>/`): what a one-shot CLI call would otherwise recompute on every start (a query's vector, which needs
 * the model; the history guard's prior, which needs a hundred recalls). Why and what it saves:
 * docs/decisions/everyday-budget.md.
 *
 * - One file per entry, named by the sha256 of its key; the file holds the key itself (length-prefixed) then
 *   the value, and a read whose stored key differs (a hash collision, another layout) is a miss.
 * - Written whole under a temporary name (pid and random bytes) then renamed: a reader sees the old entry, the
 *   new one, or none, never a part; two processes writing one key both write whole files.
 * - Bounded: past `maxEntries` files in a kind, the oldest written are removed (first in, first out) down to
 *   `keepAfterTrim` of them, so a long-running process lists and stats the folder once per hundred new
 *   entries, not on every write.
 * - Best effort: a read that fails is a miss, a write that fails is dropped (a read-only directory), silently;
 *   only a kind that is not a plain folder name (a caller's mistake) throws.
 *   Nothing here decides an answer: a key names everything its value depends on.
 * - Only an embedded data directory has one (`dataDirCacheFor`): not `memory://` (its directory lives as long
 *   as its process) nor a PostgreSQL server (no directory of its own; servers are long-lived anyway). A write
 *   never creates the data directory itself.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { resolveDatabaseUrl, resolveHome } from "./locations.ts";

export const DATA_DIR_CACHE_DEFAULTS = {
  /** The folder inside the data directory. */
  folder: "toolgraph-cache",
  /** Entries kept per kind. */
  maxEntries: 1000,
  /** Share of maxEntries left by a trim. */
  keepAfterTrim: 0.9,
} as const;

export interface DataDirCacheOptions {
  /** Entries kept per kind (oldest written removed first). Default DATA_DIR_CACHE_DEFAULTS.maxEntries. */
  maxEntries?: number | undefined;
}

const KIND = /^[a-z0-9-]{1,40}$/;

export class DataDirCache {
  readonly dataDir: string;
  readonly root: string;
  readonly maxEntries: number;
  /** Files per kind as last counted plus this instance's writes since (a directory is listed again past the bound). */
  readonly #counts = new Map<string, number>();

  constructor(dataDir: string, options: DataDirCacheOptions = {}) {
    this.dataDir = dataDir;
    this.root = join(dataDir, DATA_DIR_CACHE_DEFAULTS.folder);
    this.maxEntries = options.maxEntries ?? DATA_DIR_CACHE_DEFAULTS.maxEntries;
  }

  #path(kind: string, key: string): string {
    if (!KIND.test(kind)) throw new Error(`data-dir-cache: bad kind ${JSON.stringify(kind)}`);
    return join(this.root, kind, createHash("sha256").update(key).digest("hex").slice(0, 40));
  }

  /** The value stored under `key`, or undefined (never stored, removed, unreadable, or another key's file). */
  read(kind: string, key: string): Buffer | undefined {
    const path = this.#path(kind, key);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      return undefined;
    }
    const keyBytes = Buffer.from(key, "utf8");
    if (bytes.length < 4) return undefined;
    const n = bytes.readUInt32LE(0);
    if (n !== keyBytes.length || bytes.length < 4 + n || !bytes.subarray(4, 4 + n).equals(keyBytes)) return undefined;
    return bytes.subarray(4 + n);
  }

  /** Stores `value` under `key` (replacing it), then trims the kind to `maxEntries`; failures are ignored. */
  write(kind: string, key: string, value: Uint8Array): void {
    const path = this.#path(kind, key);
    try {
      const dir = join(this.root, kind);
      if (!existsSync(this.dataDir)) return; // never creates the data directory itself
      mkdirSync(dir, { recursive: true });
      const keyBytes = Buffer.from(key, "utf8");
      const head = Buffer.alloc(4);
      head.writeUInt32LE(keyBytes.length, 0);
      const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
      writeFileSync(tmp, Buffer.concat([head, keyBytes, value]));
      renameSync(tmp, path);
      const before = this.#counts.get(kind);
      const count = before === undefined ? readdirSync(dir).length : before + 1; // a replaced key counts twice: trim recounts
      this.#counts.set(kind, count);
      if (count > this.maxEntries) this.#counts.set(kind, this.#trim(dir));
    } catch {
      // best effort (see the header)
    }
  }

  /** Removes the oldest entries of a kind down to keepAfterTrim × maxEntries (temporary files of a crashed writer too). */
  #trim(dir: string): number {
    const names = readdirSync(dir);
    if (names.length <= this.maxEntries) return names.length;
    const keep = Math.floor(this.maxEntries * DATA_DIR_CACHE_DEFAULTS.keepAfterTrim);
    const entries: { name: string; at: number }[] = [];
    for (const name of names) {
      try {
        entries.push({ name, at: statSync(join(dir, name)).mtimeMs });
      } catch {
        // removed meanwhile by another process
      }
    }
    entries.sort((a, b) => a.at - b.at || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries.slice(0, Math.max(0, entries.length - keep))) {
      try {
        unlinkSync(join(dir, e.name));
      } catch {
        // removed meanwhile by another process
      }
    }
    return Math.min(names.length, keep);
  }
}

/**
 * The cache of the embedded data directory these options open, else undefined (PostgreSQL: `database` or
 * DATABASE_URL; `memory://`). A directory the open is about to create has one too: it reads nothing yet, and
 * its first writes (after the open made the directory) keep what this process computed (a new `demo`'s
 * analytics and guard prior, for the first CLI call after it).
 */
export function dataDirCacheFor(options: { database?: string | undefined; home?: string | undefined }) {
  if (resolveDatabaseUrl(options.database)) return undefined;
  const home = resolveHome(options.home);
  return home === "memory://" ? undefined : new DataDirCache(home);
}
