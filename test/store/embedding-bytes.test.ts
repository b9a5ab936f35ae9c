import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToVector, vectorToBytes } from "../../src/store/embeddings.ts";

// The stored form of a vector is float32 little-endian bytes; the reference is the element-wise writer.
function reference(v: Float32Array): Buffer {
  const b = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) b.writeFloatLE(v[i]!, i * 4);
  return b;
}

describe("embedding bytes", () => {
  it("[1, -0, 0.5] is stored as 00 00 80 3f | 00 00 00 80 | 00 00 00 3f", () => {
    expect(vectorToBytes(new Float32Array([1, -0, 0.5])).toString("hex")).toBe("0000803f" + "00000080" + "0000003f");
  });

  it("writes the same bytes as the element-wise little-endian writer, for any float32 vector (a view at an offset too)", () => {
    fc.assert(
      fc.property(fc.float32Array({ noNaN: true, maxLength: 600 }), fc.nat(3), (v, skip) => {
        const within = new Float32Array(v.length + skip);
        within.set(v, skip);
        const view = within.subarray(skip);
        expect(vectorToBytes(v).equals(reference(v))).toBe(true);
        expect(vectorToBytes(view).equals(reference(v))).toBe(true);
      }),
    );
  });

  it("reads back bit-identical vectors, also from a buffer that starts at an odd byte offset", () => {
    fc.assert(
      fc.property(fc.float32Array({ noNaN: true, maxLength: 600 }), fc.integer({ min: 0, max: 7 }), (v, offset) => {
        const bytes = reference(v);
        const padded = Buffer.alloc(bytes.length + offset);
        bytes.copy(padded, offset);
        const read = bytesToVector(padded.subarray(offset));
        expect(Buffer.from(read.buffer).equals(bytes)).toBe(true);
        expect(read.length).toBe(v.length);
      }),
    );
  });
});
