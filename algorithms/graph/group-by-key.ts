/**
 * Groups items by a string key, in CSR form: distinct keys in order of first appearance, the group of each
 * item, and the items of group g at members[offsets[g] .. offsets[g + 1]), by item index ascending or
 * descending. A counting sort: O(n).
 */
export interface KeyGroups {
  /** Distinct keys, in order of first appearance. */
  readonly keys: string[];
  /** Group index of each item. */
  readonly groupOf: Int32Array;
  readonly offsets: Int32Array;
  readonly members: Int32Array;
}

export function groupByKey(itemKeys: readonly string[], order: "ascending" | "descending" = "ascending"): KeyGroups {
  const index = new Map<string, number>();
  const keys: string[] = [];
  const groupOf = new Int32Array(itemKeys.length);
  itemKeys.forEach((k, i) => {
    let g = index.get(k);
    if (g === undefined) {
      g = keys.length;
      index.set(k, g);
      keys.push(k);
    }
    groupOf[i] = g;
  });
  const offsets = new Int32Array(keys.length + 1);
  for (const g of groupOf) offsets[g + 1]!++;
  for (let g = 0; g < keys.length; g++) offsets[g + 1]! += offsets[g]!;
  const fill = offsets.slice(0, keys.length);
  const members = new Int32Array(itemKeys.length);
  if (order === "ascending") for (let i = 0; i < itemKeys.length; i++) members[fill[groupOf[i]!]!++] = i;
  else for (let i = itemKeys.length - 1; i >= 0; i--) members[fill[groupOf[i]!]!++] = i;
  return { keys, groupOf, offsets, members };
}
