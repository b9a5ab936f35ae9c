/**
 * Answers to repeated identical requests at the same graph version (measured in bench/latency.ts):
 * an LRU keyed by (operation, project, graph version + in-place patches, analytics state, request JSON).
 * Entries also expire after `ttlMs` (default 10 s) because the gate reads signals that move without a
 * graph change (the machine's resources, a user's history); any write moves the graph version and so
 * misses every older entry.
 *
 * Entries are kept as V8-serialised buffers (`v8.serialize`, the structured-clone wire format), not as
 * object graphs: a cached answer is then one off-heap byte array that the garbage collector never has to
 * trace, instead of hundreds of small objects promoted to the old generation (a full cache of search
 * answers would otherwise be ~10 MiB of objects for every major GC to mark). Every hit deserialises a
 * fresh copy, so callers may mutate what they get. Expired entries are dropped from the LRU end on
 * every write, so idle entries do not pin memory until the capacity pushes them out. An answer marked
 * `degraded` (ranked while the embeddings were still being computed) is never kept: the next request gets the
 * full answer as soon as it exists.
 */
import { deserialize, serialize } from "node:v8";

export interface ResultCacheStats {
  hits: number;
  misses: number;
  size: number;
  capacity: number;
  hitRate: number;
  /** Bytes held by the cached answers. */
  bytes: number;
}

interface Entry {
  /** performance.now() when stored. */
  at: number;
  data: Buffer;
}

export class ResultCache {
  private readonly entries = new Map<string, Entry>();
  private hits = 0;
  private misses = 0;
  private bytes = 0;
  constructor(
    readonly capacity = 1000,
    readonly ttlMs = 10_000,
    /** The clock (performance.now() by default; tests pass a fake). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  async get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.capacity === 0) return compute();
    const e = this.entries.get(key);
    const now = this.now();
    if (e && now - e.at <= this.ttlMs) {
      this.hits++;
      this.entries.delete(key);
      this.entries.set(key, e);
      return deserialize(e.data) as T;
    }
    this.misses++;
    const value = await compute();
    if (e) this.drop(key, e);
    if ((value as { degraded?: unknown } | null)?.degraded !== undefined) return value;
    const data = serialize(value);
    this.entries.set(key, { at: now, data });
    this.bytes += data.byteLength;
    this.evict(now);
    return value;
  }

  /** Forgets every answer (after this process changed what answers depend on, e.g. refitted weights). */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Drops expired entries from the least recently used end, then the oldest beyond the capacity. */
  private evict(now: number): void {
    for (const [key, e] of this.entries) {
      if (this.entries.size <= this.capacity && now - e.at <= this.ttlMs) break;
      this.drop(key, e);
    }
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= e.data.byteLength;
  }

  stats(): ResultCacheStats {
    const total = this.hits + this.misses;
    return {
      hits: this.hits,
      misses: this.misses,
      size: this.entries.size,
      capacity: this.capacity,
      hitRate: total === 0 ? 0 : this.hits / total,
      bytes: this.bytes,
    };
  }
}
