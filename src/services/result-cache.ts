/**
 * Answers to repeated identical requests at the same graph version (issue 10, seed 000 caching targets):
 * an LRU keyed by (operation, project, graph version + in-place patches, analytics state, request JSON).
 * Entries also expire after `ttlMs` (default 10 s) because the gate reads signals that move without a
 * graph change (the machine's resources, a user's history); any write moves the graph version and so
 * misses every older entry.
 */
export interface ResultCacheStats {
  hits: number;
  misses: number;
  size: number;
  capacity: number;
  hitRate: number;
}

export class ResultCache {
  private readonly entries = new Map<string, { at: number; value: unknown }>();
  private hits = 0;
  private misses = 0;
  constructor(
    readonly capacity = 1000,
    readonly ttlMs = 10_000,
  ) {}

  async get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.capacity === 0) return compute();
    const e = this.entries.get(key);
    const now = performance.now();
    if (e && now - e.at <= this.ttlMs) {
      this.hits++;
      this.entries.delete(key);
      this.entries.set(key, e);
      return structuredClone(e.value) as T;
    }
    this.misses++;
    const value = await compute();
    this.entries.set(key, { at: now, value: structuredClone(value) });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  stats(): ResultCacheStats {
    const total = this.hits + this.misses;
    return { hits: this.hits, misses: this.misses, size: this.entries.size, capacity: this.capacity, hitRate: total === 0 ? 0 : this.hits / total };
  }
}
