/**
 * The template archive's reader (src/store/data-dir-tar.ts): a whole archive is written out file by file with
 * its bytes and directories; an entry that would leave the directory, a link, or a damaged header is refused.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { extractDataDir, isDataDirTar } from "../../src/store/data-dir-tar.ts";

/** One ustar header block for `name` (type "0" file, "5" directory, "2" symlink) and its padded body. */
function entry(name: string, body: Uint8Array = new Uint8Array(0), type = "0"): Uint8Array {
  const h = new Uint8Array(512);
  const put = (at: number, s: string) => h.set(Buffer.from(s, "latin1"), at);
  put(0, name);
  put(100, "0000600\0");
  put(108, "0000000\0");
  put(116, "0000000\0");
  put(124, `${body.length.toString(8).padStart(11, "0")}\0`);
  put(136, "00000000000\0");
  put(156, type);
  put(257, "ustar\0");
  put(263, "00");
  put(148, "        ");
  let sum = 0;
  for (const b of h) sum += b;
  put(148, `${sum.toString(8).padStart(6, "0")}\0 `);
  const padded = new Uint8Array(Math.ceil(body.length / 512) * 512);
  padded.set(body);
  return Buffer.concat([h, padded]);
}
const tarOf = (...entries: Uint8Array[]) => Buffer.concat([...entries, new Uint8Array(1024)]);
const bytes = (s: string) => Buffer.from(s, "utf8");

const root = mkdtempSync(join(tmpdir(), "tg-datadir-tar-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the data directory archive", () => {
  it("writes every file with its bytes, under directories listed or not", async () => {
    const big = new Uint8Array(1300).map((_, i) => i % 251);
    const tar = tarOf(entry("/base/", undefined, "5"), entry("/base/5/1259", big), entry("/PG_VERSION", bytes("17\n")));
    expect(isDataDirTar(tar)).toBe(true);
    const dir = mkdtempSync(join(root, "ok-"));
    await extractDataDir(tar, dir);
    expect(readFileSync(join(dir, "PG_VERSION"), "utf8")).toBe("17\n");
    expect(Buffer.compare(readFileSync(join(dir, "base/5/1259")), Buffer.from(big))).toBe(0);
  });

  it("an archive without PG_VERSION is not a data directory", () => {
    expect(isDataDirTar(tarOf(entry("/global/1262", bytes("x"))))).toBe(false);
  });

  for (const [what, tar] of [
    [
      "an entry that climbs out of the directory",
      tarOf(entry("/PG_VERSION", bytes("17\n")), entry("../../escaped", bytes("x"))),
    ],
    ["a symbolic link", tarOf(entry("/PG_VERSION", bytes("17\n")), entry("/link", undefined, "2"))],
  ] as const) {
    it(`refuses ${what} and writes nothing outside the directory`, async () => {
      const dir = mkdtempSync(join(root, "bad-"));
      await expect(extractDataDir(tar, dir)).rejects.toThrow(/bad entry|unsupported entry/);
      expect(existsSync(join(root, "escaped"))).toBe(false);
      expect(existsSync(join(dir, "..", "..", "escaped"))).toBe(false);
    });
  }

  it("refuses an archive whose header checksum does not hold", async () => {
    const tar = tarOf(entry("/PG_VERSION", bytes("17\n")));
    tar[10] = 0x41; // the name changes, the stored checksum does not
    expect(isDataDirTar(tar)).toBe(false);
    await expect(extractDataDir(tar, mkdtempSync(join(root, "sum-")))).rejects.toThrow(/not a whole tar/);
  });
});
