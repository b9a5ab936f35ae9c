import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EmbeddingError } from "../../src/embeddings/provider.ts";
import { textHash } from "../../src/embeddings/text-hash.ts";
import { dot, l2Norm, l2Normalised } from "../../src/embeddings/vector.ts";

describe("l2Normalised", () => {
  it("divides by the Euclidean norm", () => {
    // ‖(3, 4)‖ = sqrt(9 + 16) = 5 → (0.6, 0.8)
    const v = l2Normalised([3, 4]);
    expect(v).toBeInstanceOf(Float32Array);
    expect(v[0]).toBeCloseTo(0.6, 7);
    expect(v[1]).toBeCloseTo(0.8, 7);
  });

  it("keeps the zero vector zero", () => {
    expect(Array.from(l2Normalised([0, 0, 0]))).toEqual([0, 0, 0]);
  });

  it("empty vector stays empty", () => {
    expect(l2Normalised([]).length).toBe(0);
  });

  it("does not mutate its input", () => {
    const input = new Float32Array([3, 4]);
    l2Normalised(input);
    expect(Array.from(input)).toEqual([3, 4]);
  });

  it("property: any non-zero finite vector becomes unit length, same direction", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 64 }), (xs) => {
        fc.pre(xs.some((x) => Math.abs(x) > 1e-3));
        const v = l2Normalised(xs);
        expect(l2Norm(v)).toBeCloseTo(1, 5);
        // same direction: cosine with the input is 1
        expect(dot(v, xs) / l2Norm(xs)).toBeCloseTo(1, 5);
      }),
    );
  });
});

describe("dot", () => {
  it("sums products", () => {
    // 1·4 + 2·5 + 3·6 = 4 + 10 + 18 = 32
    expect(dot([1, 2, 3], [4, 5, 6])).toBe(32);
  });

  it("throws dimension-mismatch on different lengths", () => {
    expect(() => dot([1, 2], [1, 2, 3])).toThrow(EmbeddingError);
    try {
      dot([1, 2], [1, 2, 3]);
    } catch (err) {
      expect((err as EmbeddingError).code).toBe("dimension-mismatch");
      expect((err as EmbeddingError).message).toMatch(/2 vs 3/);
    }
  });
});

describe("textHash", () => {
  it("is sha256 hex of the UTF-8 text (published test vectors)", () => {
    // FIPS 180-2 examples
    expect(textHash("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(textHash("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("hashes non-ASCII text as UTF-8 (checked with Python hashlib)", () => {
    // python3 -c 'import hashlib; print(hashlib.sha256("é".encode()).hexdigest())'
    expect(textHash("é")).toBe("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
  });

  it("does not normalise: different strings give different keys", () => {
    expect(textHash("send an email")).not.toBe(textHash("send an email "));
    expect(textHash("Send")).not.toBe(textHash("send"));
  });
});
