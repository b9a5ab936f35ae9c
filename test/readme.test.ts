/**
 * The README's library example, run as written on the sources: `from "toolgraph"` is pointed at src/index.ts
 * (the package's "exports" name the built dist/, which test/package/consumer-check.sh covers).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

describe("README example", () => {
  // A process of its own, as a reader runs it (tsx, then a PGlite open): minutes on a busy machine.
  it("runs and prints what its comments say", { timeout: 240_000 }, () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const block = /<!-- example:start -->\s*```ts\n([\s\S]*?)```\s*<!-- example:end -->/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const dir = mkdtempSync(join(ROOT, ".readme-example-"));
    try {
      const file = join(dir, "example.ts");
      writeFileSync(
        file,
        block!.replaceAll('from "toolgraph"', `from ${JSON.stringify(pathToFileURL(join(ROOT, "src/index.ts")).href)}`),
      );
      const out = execFileSync(process.execPath, ["--import", "tsx", file], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, TOOLGRAPH_EMBEDDINGS: "hash:256", DATABASE_URL: "" },
      });
      const lines = out.trim().split("\n");
      expect(out).toContain("github.create_pull_request");
      expect(out).toContain("git.push 1");
      expect(out).toContain(
        '[ [ "git.commit" ], [ "git.push" ], [ "github.create_pull_request" ] ]'.replace(/"/g, "'"),
      );
      expect(lines.length).toBeGreaterThanOrEqual(5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
