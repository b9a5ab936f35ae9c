/** The CLI door of two-hop routing: `toolgraph search --routing`, on a real embedded database. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { demoCatalog } from "../../src/demo/catalog.ts";

let home: string;
const prevEnv = process.env.TOOLGRAPH_EMBEDDINGS;

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main([...argv, "--home", home, "--project", "routing"], { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`) });
  return { code, out, err };
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "tg-cli-routing-"));
  process.env.TOOLGRAPH_EMBEDDINGS = "hash:256";
  const cat = join(home, "catalog.json");
  writeFileSync(cat, JSON.stringify(demoCatalog()));
  const r = await run("import", "catalog", cat, "--json");
  expect(r.code, r.err).toBe(0);
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  if (prevEnv === undefined) delete process.env.TOOLGRAPH_EMBEDDINGS;
  else process.env.TOOLGRAPH_EMBEDDINGS = prevEnv;
});

describe("toolgraph search --routing", () => {
  it("two-hop routes through the namespaces and says which (--json)", async () => {
    const r = await run("search", "open a pull request on github", "--routing", "two-hop", "--limit", "3", "--json");
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.routing.mode).toBe("two-hop");
    expect(j.routing.namespaces[0].namespace).toBe("github");
    expect(j.routing.explanation).toMatch(/^routed via namespaces github \(/);
    expect(j.results[0].tool).toBe("github.create_pull_request");
  });

  it("prints the routing line above the table", async () => {
    const r = await run("search", "open a pull request on github", "--routing", "two-hop", "--limit", "3");
    expect(r.code, r.err).toBe(0);
    expect(r.out.split("\n")[0]).toMatch(/^routed via namespaces github \(0\.\d\d\)/);
    const flat = await run("search", "open a pull request on github", "--routing", "flat", "--limit", "3");
    expect(flat.out).not.toMatch(/routed via/);
  });

  it("without --routing the catalog is small: auto answers flat", async () => {
    const r = await run("search", "open a pull request", "--json");
    expect(JSON.parse(r.out).routing).toMatchObject({ requested: "auto", mode: "flat" });
  });

  it("a bad --routing value is refused once, by the request schema, naming the field (exit 3)", async () => {
    const r = await run("search", "open a pull request", "--routing", "sideways");
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/routing: Invalid option: expected one of "flat"\|"two-hop"\|"auto"/);
  });

  it("--help documents --routing", async () => {
    const r = await run("search", "--help");
    expect(r.out).toMatch(/--routing flat\|two-hop\|auto/);
  });
});
