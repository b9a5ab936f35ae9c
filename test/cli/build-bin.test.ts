/**
 * `npm run build` leaves the `toolgraph` command executable (src/cli/build-bin.mjs): tsc writes
 * dist/src/cli/bin.js as 0644, so without the step `npx toolgraph` in a checkout fails with "Permission
 * denied" after every build. The built command itself is exercised by test/package/consumer-check.sh.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const SCRIPT = join(ROOT, "src/cli/build-bin.mjs");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A package root whose `bin` files exist with the given modes, as tsc leaves them. */
function fakePackage(bin: string | Record<string, string>, mode: number): string {
  const root = mkdtempSync(join(tmpdir(), "tg-build-bin-"));
  dirs.push(root);
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "p", bin }));
  for (const file of typeof bin === "string" ? [bin] : Object.values(bin)) {
    mkdirSync(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), "#!/usr/bin/env node\n", { mode });
  }
  return root;
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("the build's bin step", () => {
  it("turns each bin file that tsc wrote 0644 into 0755", () => {
    const root = fakePackage({ a: "dist/src/cli/bin.js", b: "dist/other.js" }, 0o644);
    execFileSync(process.execPath, [SCRIPT, root]);
    expect(modeOf(join(root, "dist/src/cli/bin.js"))).toBe(0o755);
    expect(modeOf(join(root, "dist/other.js"))).toBe(0o755);
  });

  it("adds execute only where there is read (0640 → 0750), and a string bin works too", () => {
    const root = fakePackage("cli.js", 0o640);
    execFileSync(process.execPath, [SCRIPT, root]);
    expect(modeOf(join(root, "cli.js"))).toBe(0o750);
  });

  it("a bin file that is missing fails the build, naming it", () => {
    const root = fakePackage({ a: "present.js" }, 0o644);
    writeFileSync(join(root, "package.json"), JSON.stringify({ bin: { a: "present.js", b: "dist/missing.js" } }));
    expect(() => execFileSync(process.execPath, [SCRIPT, root], { stdio: "pipe" })).toThrow(/missing\.js/);
  });

  it("package.json's build runs the step after tsc has written dist (and prepack builds)", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const steps: string[] = pkg.scripts.build.split("&&").map((s: string) => s.trim());
    const tsc = steps.findIndex((s) => s.startsWith("tsc -p tsconfig.build.json"));
    expect(tsc).toBeGreaterThanOrEqual(0);
    expect(steps.indexOf("node src/cli/build-bin.mjs")).toBeGreaterThan(tsc);
    expect(pkg.scripts.prepack).toBe("npm run build");
    expect(pkg.bin).toEqual({ toolgraph: "dist/src/cli/bin.js" });
  });
});
