/**
 * Operations through the real HTTP server: request ids, /metrics (parsed), cheap /health, /ready that waits
 * for the warm-up (model, search index, analytics), structured request logs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createLogger } from "../../src/ops/logger.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { backends } from "../helpers/backends.ts";
import { parseExposition } from "../helpers/prometheus.ts";

/** The PostgreSQL server when there is one (its own schema, opened in ms), else PGlite in memory (an initdb: tens of seconds on a busy machine). */
const backend = backends().at(-1)!;
const TOKEN = "ops-token";
const AUTH = { authorization: `Bearer ${TOKEN}` };
let tg: Toolgraph;
let server: ServerHandle;
const lines: string[] = [];

beforeAll(async () => {
  tg = await openToolgraph({ ...(await backend.options()), project: "demo", embeddings: "hash:256" });
  await tg.importCatalog(demoCatalog(), { embed: false });
  await tg.importTraces(demoTraces(200, 7, Date.parse("2026-11-01T12:00:00Z")));
  server = await startServer({
    api: tg,
    port: 0,
    token: TOKEN,
    log: () => {},
    logger: createLogger({ format: "json", level: "info", write: (l) => lines.push(l) }),
  });
});

afterAll(async () => {
  await server?.close();
  await tg?.close();
  await backend.dispose();
});

const post = (path: string, body: object, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("operations endpoints", () => {
  it("/ready answers 503 until the warm-up is done, then 200 with every check ok", async () => {
    const cold = await startServer({
      api: tg,
      port: 0,
      token: TOKEN,
      log: () => {},
      logger: createLogger({ write: () => {} }),
      warmUp: false,
    });
    try {
      const r = await fetch(`${cold.url}/ready`);
      expect(r.status).toBe(503);
      expect((await r.json()).checks.map((c: { name: string; state: string }) => [c.name, c.state])).toEqual([
        ["database", "ok"],
        ["model", "pending"],
        ["index", "pending"],
        ["analytics", "pending"],
      ]);
    } finally {
      await cold.close();
    }
    await server.server.readiness.start();
    const r = await fetch(`${server.url}/ready`);
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.ready).toBe(true);
    expect(body.checks.map((c: { name: string; state: string }) => [c.name, c.state])).toEqual([
      ["database", "ok"],
      ["model", "ok"],
      ["index", "ok"],
      ["analytics", "ok"],
    ]);
  });

  it("a failing added check makes /ready 503 and names it, without the error text", async () => {
    const s = await startServer({
      api: tg,
      port: 0,
      token: TOKEN,
      log: () => {},
      logger: createLogger({ write: () => {} }),
    });
    try {
      s.server.readiness.addCheck("upstream", async () => ({
        ok: false,
        state: "failed",
        error: "secret-host:9 refused",
      }));
      await s.server.readiness.start();
      const r = await fetch(`${s.url}/ready`);
      expect(r.status).toBe(503);
      const text = await r.text();
      expect(JSON.parse(text).checks.find((c: { name: string }) => c.name === "upstream")).toMatchObject({
        ok: false,
        state: "failed",
      });
      expect(text).not.toContain("secret-host");
    } finally {
      await s.close();
    }
  });

  it("/health is open and cheap (no token): ok and nothing more; with the token, the backend", async () => {
    const r = await fetch(`${server.url}/health`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ ok: true });
    const authorized = await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await authorized.json()).toMatchObject({ ok: true, backend: backend.name });
  });

  it("request ids: a caller's id is echoed and logged; otherwise one is made", async () => {
    const r = await post("/v1/search", { intent: "read a file" }, { "x-request-id": "abc-123" });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toBe("abc-123");
    const made = await post("/v1/search", { intent: "read a file" });
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.requestId === "abc-123");
    expect(logged).toMatchObject({
      level: "info",
      msg: "request",
      method: "POST",
      path: "/v1/search",
      job: "searchTools",
      status: 200,
    });
  });

  it("/metrics needs the token and counts requests per job, gate decisions and cache hits", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const before = parseExposition(await (await fetch(`${server.url}/metrics`, { headers: AUTH })).text());
    const count = (p: typeof before, name: string, labels: Record<string, string>) =>
      p.samples
        .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((t, s) => t + s.value, 0);
    const decisions: string[] = [];
    for (const intent of ["open a pull request", "roll back the deploy", "open a pull request"]) {
      const r = await post("/v1/search", { intent, limit: 3 });
      const body = await r.json();
      const ds = body.results.map((x: { gate: { decision: string } }) => x.gate.decision);
      decisions.push(
        ds.includes("accepted")
          ? "accepted"
          : ds.includes("accepted-with-caution")
            ? "accepted-with-caution"
            : ds.length
              ? "abstained"
              : "none",
      );
    }
    const res = await fetch(`${server.url}/metrics`, { headers: AUTH });
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const after = parseExposition(await res.text());
    expect(after.types.get("toolgraph_http_request_duration_seconds")).toBe("histogram");
    const n = (p: typeof before) =>
      count(p, "toolgraph_http_request_duration_seconds_count", { job: "searchTools", status: "200" });
    expect(n(after) - n(before)).toBe(3);
    for (const d of new Set(decisions)) {
      const delta =
        count(after, "toolgraph_gate_decisions_total", { job: "searchTools", decision: d }) -
        count(before, "toolgraph_gate_decisions_total", { job: "searchTools", decision: d });
      expect(delta).toBe(decisions.filter((x) => x === d).length);
    }
    // The third search repeats the first: one more result-cache hit.
    expect(
      count(after, "toolgraph_cache_hits_total", { cache: "results" }) -
        count(before, "toolgraph_cache_hits_total", { cache: "results" }),
    ).toBe(1);
    expect(count(after, "toolgraph_ready", {})).toBe(1);
    const phases = after.samples
      .filter((s) => s.name === "toolgraph_analytics_refresh_seconds")
      .map((s) => s.labels.phase);
    expect(phases).toContain("total");
  });
});
