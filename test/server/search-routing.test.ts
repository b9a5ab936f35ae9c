/** The HTTP door of two-hop routing: POST /v1/search `routing`, its validation and the OpenAPI schema. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { backends } from "../helpers/backends.ts";

/** The PostgreSQL server when there is one (its own schema, opened in ms), else PGlite in memory (an initdb: tens of seconds on a busy machine). */
const backend = backends().at(-1)!;
let tg: Toolgraph;
let server: ServerHandle;

async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(server.url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

beforeAll(async () => {
  tg = await openToolgraph({ ...(await backend.options()), project: "demo", embeddings: "hash:256" });
  await tg.importCatalog(demoCatalog());
  server = await startServer({ api: tg, port: 0, log: () => {} });
});
afterAll(async () => {
  await server?.close();
  await tg?.close();
  await backend.dispose();
});

describe("POST /v1/search routing", () => {
  it("two-hop answers with the routed namespaces", async () => {
    const r = await post("/v1/search", { intent: "open a pull request on github", routing: "two-hop", limit: 3 });
    expect(r.status).toBe(200);
    expect(r.json.routing.mode).toBe("two-hop");
    expect(r.json.routing.namespaces[0].namespace).toBe("github");
    expect(r.json.routing.explanation).toMatch(/^routed via namespaces github/);
    expect(r.json.results[0].tool).toBe("github.create_pull_request");
  });

  it("flat and the default (auto) search every tool", async () => {
    expect((await post("/v1/search", { intent: "open a pull request", routing: "flat" })).json.routing).toMatchObject({
      requested: "flat",
      mode: "flat",
    });
    expect((await post("/v1/search", { intent: "open a pull request" })).json.routing).toMatchObject({
      requested: "auto",
      mode: "flat",
    });
  });

  it("a bad routing value is 400 naming the field", async () => {
    const r = await post("/v1/search", { intent: "open a pull request", routing: "sideways" });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toMatch(/routing/);
  });

  it("the OpenAPI document lists routing with its values", async () => {
    const doc: any = await (await fetch(`${server.url}/openapi.json`)).json();
    const schema = doc.paths["/v1/search"].post.requestBody.content["application/json"].schema;
    expect(schema.properties.routing.enum).toEqual(["flat", "two-hop", "auto"]);
  });
});
