/**
 * Where the console test's browser comes from (test/helpers/browser.ts): the npm package by default, a named
 * binary when TOOLGRAPH_CHROMIUM is set, and an error, never a skip, when neither can be had.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findTestBrowser } from "../helpers/browser.ts";

describe("findTestBrowser", () => {
  it("takes the browser from the npm dependency tree: a binary that exists, with its headless flags", async () => {
    const b = await findTestBrowser({ path: "" });
    expect(b.source).toBe("@sparticuz/chromium");
    expect(existsSync(b.executablePath)).toBe(true);
    expect(b.args).toContain("--no-sandbox");
  }, 120_000);

  it("a named binary that does not exist is an error naming it", async () => {
    await expect(findTestBrowser({ path: "/nonexistent/chromium" })).rejects.toThrow(/TOOLGRAPH_CHROMIUM names \/nonexistent\/chromium, which does not exist/);
  });

  it("a named binary that exists is used as it is, with the flags for a distribution's browser", async () => {
    const b = await findTestBrowser({ path: process.execPath });
    expect(b).toMatchObject({ executablePath: process.execPath, source: `TOOLGRAPH_CHROMIUM=${process.execPath}` });
    expect(b.args).toContain("--use-angle=swiftshader");
  });

  it("no npm browser (not installed, or it cannot be unpacked) is an error saying how to get one", async () => {
    const missing = () => Promise.reject(new Error("Cannot find package '@sparticuz/chromium'"));
    await expect(findTestBrowser({ path: "", loadPackage: missing })).rejects.toThrow(/no browser for the console test: .*Cannot find package.*Run `npm install`.*fails rather than skips/);
    const unpackFails = async () => ({ args: [], executablePath: () => Promise.reject(new Error("ENOSPC")) });
    await expect(findTestBrowser({ path: "", loadPackage: unpackFails })).rejects.toThrow(/could not be loaded or unpacked \(ENOSPC\)/);
  });
});
