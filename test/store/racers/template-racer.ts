/**
 * One of the processes that create the PGlite template at once (test/store/pglite-template.test.ts): it opens
 * a new in-memory database at the shared start instant, with an empty template cache, and prints the number of
 * applied migrations. argv[2]: JSON { go }; the cache directory comes from TOOLGRAPH_CACHE_DIR.
 */
import { sql } from "kysely";
import { openConnection } from "../../../src/store/connection.ts";
import { startSignal } from "./start-signal.ts";

const cfg = JSON.parse(process.argv[2]!) as { go: string };
const at = await startSignal(cfg.go);
while (Date.now() < at) await new Promise((res) => setTimeout(res, 1));
const conn = await openConnection({ home: "memory://" });
const r = await sql<{ n: string }>`SELECT count(*) AS n FROM toolgraph_migrations`.execute(conn.db);
await conn.close();
process.stdout.write(`migrations ${r.rows[0]!.n}\n`);
