/**
 * A mask of tools an answer must never contain, given by the library caller rather than the request (a
 * gateway session's policy, which may deny thousands of tools: more than a request's `exclude` may list).
 * The scorers skip masked tools as they skip excluded ones, so an answer still has `limit` allowed items
 * (docs/decisions/gateway-trust.md). Library-only: not part of the HTTP, MCP or CLI requests.
 *
 * `key` names the mask's content for the result cache (an answer is cached per request, and the request's
 * JSON carries the key, not the ids): two masks with the same key must hold the same ids.
 */
import { z } from "zod";

export class ToolMask {
  readonly key: string;
  readonly #ids: ReadonlySet<string>;

  constructor(key: string, ids: Iterable<string>) {
    this.key = key;
    this.#ids = new Set(ids);
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  get size(): number {
    return this.#ids.size;
  }

  ids(): IterableIterator<string> {
    return this.#ids.values();
  }

  toJSON(): string {
    return `tool mask ${this.key}`;
  }
}

/** The library option of search, suggestNext and plan. */
export const maskOptions = z
  .object({
    deny: z.instanceof(ToolMask).optional().describe("Tools never to return, whatever the request (library only)"),
  })
  .strict();

/**
 * The tool indices a search may draw candidates from under `mask` (ascending): all but the masked, within
 * `within` when given (a two-hop route's tools). Undefined when nothing is masked (every tool, or `within`).
 */
export function unmaskedIndices(
  tools: readonly { id: string }[],
  mask: ToolMask | undefined,
  within?: Int32Array,
): Int32Array | undefined {
  if (!mask || mask.size === 0) return within;
  if (within) return within.filter((i) => !mask.has(tools[i]!.id));
  const out: number[] = [];
  for (let i = 0; i < tools.length; i++) if (!mask.has(tools[i]!.id)) out.push(i);
  return Int32Array.from(out);
}

/** The tools a request excludes: its `exclude` ids and its mask's. */
export function exclusionOf(req: { exclude?: readonly string[] | undefined; deny?: ToolMask | undefined }): {
  has(id: string): boolean;
  readonly size: number;
} {
  const listed = new Set(req.exclude ?? []);
  const mask = req.deny;
  if (!mask || mask.size === 0) return listed;
  return {
    has: (id: string) => listed.has(id) || mask.has(id),
    size: listed.size + mask.size,
  };
}
