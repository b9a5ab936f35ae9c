/**
 * An upload just over the body limit always gets its 413 (issue 21, item 4): the server reads and discards
 * the rest of the body before answering and closing, so the client never sees a connection reset instead.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/api/toolgraph.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { type Backend, backends } from "../helpers/backends.ts";

const LIMIT = 4 * 1024 * 1024;
let tg: Toolgraph;
let server: ServerHandle;
// The body is read before any database work: one backend is enough (the server one when available: it opens fastest).
const backend: Backend = backends().at(-1)!;

beforeAll(async () => {
  tg = await openToolgraph({ ...(await backend.options()), embeddings: "hash:64" });
  server = await startServer({ api: tg, port: 0, bodyLimitBytes: LIMIT, log: () => {} });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await tg?.close();
  await backend.dispose();
});

/** Sends `size` bytes in 16 KiB chunks (declared length or chunked); resolves with the status and body, or the socket error. */
function upload(size: number, declared: boolean): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const url = new URL(`${server.url}/v1/search`);
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json", ...(declared ? { "content-length": String(size) } : {}) } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", (e) => resolve({ error: e.message }));
      },
    );
    req.on("error", (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const n = Math.min(chunk.length, size - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          req.once("drain", pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

describe("body limit", () => {
  it.each([
    ["declared length", true],
    ["chunked", false],
  ])("limit + 1 byte (%s) is always 413 payload-too-large, never a reset (8 uploads)", async (_n, declared) => {
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await upload(LIMIT + 1 + i * 997, declared));
    for (const r of results) {
      expect(r).toHaveProperty("status", 413);
      expect(JSON.parse((r as { body: string }).body).error.code).toBe("payload-too-large");
    }
  });

  it("an upload far past the limit and the drain allowance is cut (the server does not read it all)", async () => {
    // 4 MiB limit + 64 MiB drain: 80 MiB declared is refused at once; the client may see the 413 or a reset.
    const r = await upload(80 * 1024 * 1024, true);
    if ("status" in r) expect(r.status).toBe(413);
    else expect(["ECONNRESET", "EPIPE"]).toContain(r.error);
  }, 60_000);

  it("a body at the limit is read (400 for bad JSON, not 413)", async () => {
    const r = await upload(LIMIT, true);
    expect(r).toHaveProperty("status", 400);
  });
});
