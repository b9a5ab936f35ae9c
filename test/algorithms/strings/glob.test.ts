import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { globRegExp } from "../../../algorithms/strings/glob.ts";

describe("globRegExp", () => {
  it("`*` is any run (dots included), `?` one character, the rest literal (hand-computed)", () => {
    expect(globRegExp("fs.*").test("fs.read_file")).toBe(true);
    expect(globRegExp("fs.*").test("fsx.read")).toBe(false);
    expect(globRegExp("*.delete_?").test("db.x.delete_1")).toBe(true);
    expect(globRegExp("*.delete_?").test("db.delete_12")).toBe(false);
    expect(globRegExp("a+b(c)").test("a+b(c)")).toBe(true);
    expect(globRegExp("a+b(c)").test("aab(c)")).toBe(false);
    expect(globRegExp("x*").test("x\ny")).toBe(true);
  });

  it("property: a glob without wildcards matches exactly itself; `*` matches everything", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/[*?]/.test(s)),
        fc.string(),
        (g, other) => {
          expect(globRegExp(g).test(g)).toBe(true);
          expect(globRegExp(g).test(other)).toBe(other === g);
          expect(globRegExp("*").test(other)).toBe(true);
        },
      ),
    );
  });
});
