/** The empty-project error names the projects of the database that have tools (on both backends). */
import { describe, expect, it } from "vitest";
import { ToolgraphError } from "../../src/contract/errors.ts";
import { openToolgraph } from "../../src/library/toolgraph.ts";
import { backends } from "../helpers/backends.ts";

for (const backend of backends()) {
  describe(`empty-project on ${backend.name}`, () => {
    it("lists the projects that have tools, most tools first; with none, says how to get one", async () => {
      const tg = await openToolgraph({ ...(await backend.options()), project: "default", embeddings: "hash:32" });
      try {
        const none = await tg.search({ intent: "anything" }).catch((e: unknown) => e);
        expect(none).toBeInstanceOf(ToolgraphError);
        expect((none as ToolgraphError).code).toBe("empty-project");
        // The library's spelling of the advice; each door re-spells it (test/library/door-advice.test.ts).
        expect((none as ToolgraphError).message).toBe(
          'project "default" has no tools: import a catalog first (tg.importCatalog(…))',
        );
        expect((none as ToolgraphError).messageFor("cli")).toBe(
          'project "default" has no tools: import a catalog first (toolgraph import catalog FILE, or toolgraph demo)',
        );
        expect((none as ToolgraphError).messageFor("http")).toBe(
          'project "default" has no tools: import a catalog first (POST /v1/import/catalog)',
        );
        await tg.importCatalog({ tools: [{ id: "a", description: "A" }] }, { project: "small" });
        await tg.importCatalog({ tools: ["x", "y", "z"].map((id) => ({ id, description: id })) }, { project: "demo" });
        const e = (await tg.search({ intent: "anything" }).catch((err: unknown) => err)) as ToolgraphError;
        expect(e.code).toBe("empty-project");
        expect(e.message).toBe(
          'project "default" has no tools: import a catalog first, or use one of the projects here: demo (3 tools), small (1 tool) — e.g. { project: "demo" }',
        );
        expect(e.messageFor("cli")).toBe(
          'project "default" has no tools: import a catalog first, or use one of the projects here: demo (3 tools), small (1 tool) — e.g. --project demo',
        );
        expect(e.details).toEqual({ project: "default", projects: ["demo", "small"] });
      } finally {
        await tg.close();
        await backend.dispose();
      }
    });
  });
}
