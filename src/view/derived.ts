/**
 * Derived state of a versioned view (no module-level caches): each view object — the graph snapshot of one
 * graph version, the search index of one catalog, the intent memory of one build — owns one memo, and each
 * piece of derived state is a typed key declared next to its builder:
 *
 *   const MODEL = derivedKey<NextStepModel>("next-step model");
 *   const model = s.derived(MODEL, () => buildNextStepModel(…), [a.analytics]);
 *
 * A value is built once per view and per `inputs` (other views it also reads, compared by identity with
 * Object.is, e.g. the analytics object it was computed from); when the inputs change it is rebuilt. The
 * value dies with its view: a new graph version (a reload, or an in-place patch for graph-scoped keys) starts
 * with an empty memo.
 */

/**
 * What a derived value depends on in its snapshot: "graph" (edges, counters: dropped when the snapshot is
 * patched in place to a new graph version) or "catalog" (tool and capability rows only: kept across patches,
 * which never change them).
 */
export type DerivedScope = "graph" | "catalog";

/** The typed name of one piece of derived state. Compared by identity: declare each key once, at module level. */
export interface DerivedKey<T> {
  readonly name: string;
  readonly scope: DerivedScope;
  /** Type marker only (never set). */
  readonly __value?: T;
}

/** Declares a derived-state key (`scope` default "graph": dropped with any change of the graph). */
export function derivedKey<T>(name: string, scope: DerivedScope = "graph"): DerivedKey<T> {
  return Object.freeze({ name, scope });
}

interface Entry {
  inputs: readonly unknown[];
  value: unknown;
}

function sameInputs(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/** The memo of one view object (see the header). */
export class DerivedState {
  private readonly memo = new Map<DerivedKey<unknown>, Entry>();

  /** The value of `key` for these `inputs`, built by `build` on first use and whenever the inputs change. */
  get<T>(key: DerivedKey<T>, build: () => T, inputs: readonly unknown[] = []): T {
    const hit = this.memo.get(key);
    if (hit !== undefined && sameInputs(hit.inputs, inputs)) return hit.value as T;
    const value = build();
    this.memo.set(key, { inputs, value });
    return value;
  }

  /** Drops the value of `key` when it is still `value` (a promise that failed must not answer for good). */
  forget<T>(key: DerivedKey<T>, value: T): void {
    if (this.memo.get(key)?.value === value) this.memo.delete(key);
  }

  /** True when `key` holds a value (tests, diagnostics). */
  has(key: DerivedKey<unknown>): boolean {
    return this.memo.has(key);
  }

  /** Drops the values of one scope (the view changed in place), or all of them. */
  clear(scope?: DerivedScope): void {
    if (scope === undefined) {
      this.memo.clear();
      return;
    }
    for (const key of this.memo.keys()) if (key.scope === scope) this.memo.delete(key);
  }

  /** How many values are held. */
  get size(): number {
    return this.memo.size;
  }
}
