/**
 * A project's view is built once per graph version and handed to every job until the version changes: the
 * same object while the version holds, a new one after a write, and one per project.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { pgliteBackend } from "../helpers/backends.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const tools = [
  { id: "a.one", name: "one", description: "open the file" },
  { id: "a.two", name: "two", description: "write the file" },
];
const run = (i: number) => ({
  id: `run-${i}`,
  startedAt: new Date(T0 + i * 60_000).toISOString(),
  success: true,
  steps: [{ tool: "a.one" }, { tool: "a.two" }],
});

describe("ProjectView", () => {
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({ ...(await pgliteBackend().options()), project: "pv", embeddings: "hash:16" });
    await tg.importCatalog({ tools });
    await tg.importTraces([run(0)]);
  });
  afterAll(async () => {
    await tg?.close();
  });

  it("is reused while the graph version holds, rebuilt when it changes", async () => {
    const v1 = await engineOf(tg).view("pv");
    expect(await engineOf(tg).view("pv")).toBe(v1);
    expect(v1.project).toBe("pv");
    expect(v1.version).toBe(v1.snapshot.version);
    expect(v1.snapshot.n).toBe(2);
    expect(v1.gate).toBe(engineOf(tg).gatekeeper);

    await tg.recordExecution(run(1));
    const v2 = await engineOf(tg).view("pv");
    expect(v2).not.toBe(v1);
    expect(v2.version).toBe(v1.version + 1);
    expect(await v1.latest()).toBe(v2);
    // Two runs of a.one → a.two in the new version's snapshot.
    expect(v2.snapshot.executions[v2.snapshot.index.get("a.one")!]).toBe(2);
  });

  it("is one per project", async () => {
    await tg.importCatalog({ tools }, { project: "pv-other" });
    const other = await engineOf(tg).view("pv-other");
    expect(other.project).toBe("pv-other");
    expect(other).not.toBe(await engineOf(tg).view("pv"));
    expect(other.snapshot.executions[0]).toBe(0);
  });
});
