/**
 * The CLI door of two-hop routing: `toolgraph search --routing`, in process on a real database (its own schema
 * on the server, else its own embedded directory; test/cli/harness.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { type CliResult, cli, freshTarget, type Target, useEmbeddings } from "./harness.ts";

let target: Target;
let restoreEmbeddings: () => void;
const run = (...argv: string[]): Promise<CliResult> => cli(target).run(...argv, "--project", "routing");

beforeAll(async () => {
  restoreEmbeddings = useEmbeddings("hash:256");
  target = await freshTarget();
  const r = await cli(target, JSON.stringify(demoCatalog())).run(
    "import",
    "catalog",
    "-",
    "--project",
    "routing",
    "--json",
  );
  expect(r.code, r.err).toBe(0);
});
afterAll(async () => {
  await target?.dispose();
  restoreEmbeddings();
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
