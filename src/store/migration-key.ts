/**
 * The key of what a database migrated by this code holds: a hash of the migration files' names and sources
 * (migrations/, beside this module's package: the `.ts` sources or the built `.js`). The PGlite template is
 * named by it (pglite-template.ts), so a new or changed migration makes a new template.
 *
 * It lists and reads the files and loads none of them: the embedded database's thread computes it on every
 * new database, and importing the migrations (and kysely with them, 20 MB and 0.2 s of CPU) is needed only
 * when a template is made. A file that cannot be read stands in by its name alone; a template keyed that way
 * is still never wrong, as every open checks the migration table (migrate.ts) and runs what is missing.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);
const EXT = extname(here);
const DIR = join(dirname(here), "..", "..", "migrations");

/** The migration files' names (without extension) in the migrations directory, sorted; [] when unreadable. */
export function migrationFileNames(): string[] {
  try {
    return readdirSync(DIR)
      .filter((f) => f.endsWith(EXT) && !f.endsWith(`.d${EXT}`))
      .map((f) => f.slice(0, -EXT.length))
      .sort();
  } catch {
    return [];
  }
}

let key: string | undefined;
/** The hash of `names` (default: the migration files found) and their sources. */
export function migrationsKey(names?: readonly string[]): string {
  if (names === undefined && key) return key;
  const h = createHash("sha256");
  for (const name of names ?? migrationFileNames()) {
    let source: string;
    try {
      source = readFileSync(join(DIR, `${name}${EXT}`), "utf8");
    } catch {
      source = "(unreadable)";
    }
    h.update(`${name}\0${source}\0`);
  }
  const digest = h.digest("hex");
  if (names === undefined) key = digest;
  return digest;
}
