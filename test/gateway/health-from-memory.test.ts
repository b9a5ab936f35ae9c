/**
 * The gateway's /health never waits on the database: a transaction holds the embedded database's one
 * connection (as a catalog import or a sync does for seconds), and the gateway's /health answers meanwhile,
 * while the plain server's /health (one `SELECT 1`) answers only once the transaction ends. Embedded database.
 */
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway, gatewayApi } from "../../src/gateway/gateway.ts";
import { gatewayHealth } from "../../src/gateway/transports.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createServer, type ToolgraphServer } from "../../src/server/http-server.ts";

const fixture = fileURLToPath(new URL("./fixtures/hostile-server.mjs", import.meta.url));

let tg: Toolgraph;
let gateway: Gateway;
let server: ToolgraphServer;
let plain: ToolgraphServer;
let base: string;
let plainBase: string;

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "health", embeddings: "hash:64" });
  const config = parseGatewayConfig({
    mcpServers: { hostile: { command: process.execPath, args: [fixture], env: { HOSTILE_TOOLS: "5" } } },
  });
  gateway = new Gateway(tg, { config, log: () => {} });
  await gateway.start({ waitForEmbeddings: false });
  server = createServer(gatewayApi(tg, gateway), {
    token: "",
    log: () => {},
    healthExtra: gatewayHealth(gateway),
  });
  base = (await server.listen(0, "127.0.0.1")).url;
  plain = createServer(tg, { token: "", log: () => {} });
  plainBase = (await plain.listen(0, "127.0.0.1")).url;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await plain?.close();
  await gateway?.close();
  await tg?.close();
});

describe("/health while the database is busy", () => {
  it("answers from memory while a transaction holds the database's one connection", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const started = new Promise<void>((r) => (inside = r));
    const tx = engineOf(tg)
      .db.transaction()
      .execute(async (trx) => {
        await sql`SELECT 1`.execute(trx);
        inside();
        await held;
      });
    await started;
    try {
      let plainAnswered = false;
      const plainHealth = fetch(`${plainBase}/health`).then(async (r) => {
        plainAnswered = true;
        return r.status;
      });
      const r = await fetch(`${base}/health`);
      expect(r.status).toBe(200);
      const body = (await r.json()) as { ok: boolean; backend: string; gateway: { ok: boolean } };
      expect(body.ok).toBe(true);
      expect(body.backend).toBe("pglite");
      expect(body.gateway.ok).toBe(true);
      // The plain server's probe is still waiting for the connection the transaction holds.
      expect(plainAnswered).toBe(false);
      release();
      await tx;
      expect(await plainHealth).toBe(200);
    } finally {
      release();
      await tx;
    }
  });
});
