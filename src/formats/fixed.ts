/**
 * Numbers in answer texts (explanations, DAG edge sentences): `x.toFixed(2 | 3)` byte for byte, without its
 * cost on the values answers mostly hold. One formatter for every job that writes such sentences.
 */

/**
 * `x.toFixed(digits)` for digits 2 or 3, byte for byte: 0 and 1 (the values a term most often takes) are
 * spelled directly and other values in (0, 1) rounded as integers, falling back to toFixed near a tie,
 * where the exact decimal value of x decides (toFixed rounds it half up); values outside [0, 1] use toFixed.
 */
export function formatFixed(x: number, digits: 2 | 3): string {
  if (x === 0) return digits === 2 ? "0.00" : "0.000";
  if (x === 1) return digits === 2 ? "1.00" : "1.000";
  if (!(x > 0 && x < 1)) return x.toFixed(digits);
  const scale = digits === 2 ? 100 : 1000;
  const y = x * scale;
  const frac = y - Math.floor(y);
  if (frac > 0.499999 && frac < 0.500001) return x.toFixed(digits);
  // n in [0, scale]: its spelling from the table (no string is built per number).
  return digits === 2 ? FIXED_2[Math.round(y)]! : FIXED_3[Math.round(y)]!;
}

/** n / 10^digits spelled with `digits` decimals, for n = 0 … 10^digits ("0.00", "0.01", … "1.00"). */
function spelled(digits: 2 | 3): readonly string[] {
  const scale = digits === 2 ? 100 : 1000;
  return Object.freeze(
    Array.from({ length: scale + 1 }, (_, n) =>
      n === scale ? (digits === 2 ? "1.00" : "1.000") : `0.${String(n).padStart(digits, "0")}`,
    ),
  );
}

const FIXED_2 = spelled(2);
const FIXED_3 = spelled(3);
