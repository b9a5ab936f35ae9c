import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { purposeQuery } from "../../../algorithms/evaluation/purpose-query.ts";

describe("purposeQuery", () => {
  it("drops literal mentions of the name and id, keeps the description's words in order", () => {
    expect(
      purposeQuery({
        id: "ci.rollback",
        name: "rollback",
        description: "Roll back a deployment to the previous release (see ci.rollback).",
      }),
    ).toBe("Roll back a deployment to the previous release see");
    expect(
      purposeQuery({
        id: "tlos:get_current_date",
        name: "get_current_date",
        description: "Returns the current date in a standard format (e.g., YYYY-MM-DD).",
      }),
    ).toBe("Returns the current date in a standard format e g YYYY MM DD");
    expect(
      purposeQuery({ id: "nestful:generate_invoice", name: "generate_invoice", description: "Generate an invoice" }),
    ).toBe("Generate an invoice");
    expect(purposeQuery({ id: "a.echo", name: "echo", description: "ECHO!" })).toBe("");
  });

  it("property: a subsequence of the description's words without a one-word name", () => {
    const word = fc.stringMatching(/^[a-z]{1,4}$/);
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 12 }),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        (desc, nameWords) => {
          const name = nameWords.join("_");
          const description = desc.join(" ");
          const q = purposeQuery({ id: `x:${name}`, name, description });
          const words = q.length > 0 ? q.split(" ") : [];
          let at = 0;
          for (const w of words) {
            while (at < desc.length && desc[at] !== w) at++;
            expect(at).toBeLessThan(desc.length);
            at++;
          }
          if (nameWords.length === 1 && name.length >= 2) expect(words).not.toContain(name);
        },
      ),
      { numRuns: 300 },
    );
  });
});
