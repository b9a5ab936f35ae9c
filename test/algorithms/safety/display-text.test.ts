import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sanitizeDisplayText } from "../../../algorithms/safety/display-text.ts";

const FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/u;

describe("sanitizeDisplayText", () => {
  it("returns clean text as the same string, with nothing removed", () => {
    const s = "Reads a file.\n\tReturns its text — in UTF-8 (ünïcödé, 漢字, 😀).";
    const r = sanitizeDisplayText(s);
    expect(r.text).toBe(s);
    expect(r.removed).toEqual({});
  });

  it("removes each kind and counts it (worked by hand)", () => {
    const tag = (c: string) => String.fromCodePoint(0xe0000 + c.charCodeAt(0));
    const s = `a\u001b[31mb\u009b2Jc\u202eevil\u202cd\u200be\u2028f${tag("h")}${tag("i")}g\r\nh\ri\ud800j`;
    const r = sanitizeDisplayText(s);
    expect(r.text).toBe("a[31mb2Jcevilde\nfg\nhi\ufffdj");
    expect(r.removed).toEqual({ control: 3, bidi: 2, invisible: 1, separator: 1, tag: 2, surrogate: 1 });
  });

  it("property: no forbidden character survives, clean text is unchanged, and it is idempotent", () => {
    const chars = fc.oneof(
      fc.constantFrom(
        "\u0000",
        "\u001b",
        "\u007f",
        "\u009b",
        "\u200b",
        "\u200d",
        "\u202e",
        "\u2066",
        "\u2028",
        "\u2029",
        "\ufeff",
        "\u00ad",
        "\r",
        "\n",
        "\t",
        "\ud800",
        "\udc00",
        String.fromCodePoint(0xe0041),
      ),
      fc.string({ unit: "grapheme", maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 40 }), (parts) => {
        const s = parts.join("");
        const once = sanitizeDisplayText(s).text;
        expect(FORBIDDEN.test(once)).toBe(false);
        expect(once.includes("\r")).toBe(false);
        expect(sanitizeDisplayText(once).text).toBe(once);
        expect(sanitizeDisplayText(once).removed).toEqual({});
      }),
      { numRuns: 500 },
    );
  });
});
