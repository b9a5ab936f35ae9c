/**
 * Option merging for the thresholds module: `{ ...DEFAULTS, ...stripUndefined(options) }` keeps a default
 * for every field the caller left undefined (the `??` rule of STYLE.md, applied field by field).
 */

/** Copy of `o` without its undefined fields. */
export function stripUndefined<T extends object>(o: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (o === undefined) return out;
  for (const k of Object.keys(o) as (keyof T)[]) {
    if (o[k] !== undefined) out[k] = o[k];
  }
  return out;
}
