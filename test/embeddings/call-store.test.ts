/**
 * A local model's answers kept call by call (src/embeddings/call-store.ts, src/store/user-cache.ts): the same
 * call answers with the model's own bytes without the model, any other list of texts goes to the model, a
 * damaged entry is a miss, and a memory:// project's second open of the same tools answers exactly as the first
 * with nothing new embedded.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddingCallStore, embedThroughStore, embeddingCallKey } from "../../src/embeddings/call-store.ts";
import { UseLiteProvider } from "../../src/embeddings/use-lite.ts";
import { EmbeddingWorkerPool } from "../../src/embeddings/worker-pool.ts";
import { openToolgraph } from "../../src/index.ts";
import { userCacheDir, userEmbeddingStore } from "../../src/store/user-cache.ts";

/** An in-memory store that counts its reads and writes. */
function mapStore(): EmbeddingCallStore & { map: Map<string, Uint8Array>; gets: number; sets: number } {
  const map = new Map<string, Uint8Array>();
  const s = {
    map,
    gets: 0,
    sets: 0,
    get(key: string) {
      s.gets++;
      return map.get(key);
    },
    set(key: string, bytes: Uint8Array) {
      s.sets++;
      map.set(key, bytes.slice());
    },
  };
  return s;
}

const bytes = (vs: Float32Array[]) => Buffer.concat(vs.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)));
const CALL = { model: "m", dimensions: 3, batchSize: 2, where: "test" };

let dir: string;
const saved = process.env.TOOLGRAPH_CACHE_DIR;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tg-call-store-"));
  process.env.TOOLGRAPH_CACHE_DIR = dir;
});
afterAll(() => {
  if (saved === undefined) delete process.env.TOOLGRAPH_CACHE_DIR;
  else process.env.TOOLGRAPH_CACHE_DIR = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe("embedThroughStore", () => {
  it("answers a repeated call from the store with the bytes computed, and runs the model for any other list", async () => {
    const store = mapStore();
    let computed = 0;
    const model = (texts: readonly string[]) => async () => {
      computed++;
      return texts.map((t, i) => Float32Array.of(t.length, i, 0.1 * computed));
    };
    const first = await embedThroughStore(store, CALL, ["a", "bb"], {}, model(["a", "bb"]));
    expect(computed).toBe(1);
    const again = await embedThroughStore(store, CALL, ["a", "bb"], {}, model(["a", "bb"]));
    expect(computed).toBe(1);
    expect(bytes(again)).toEqual(bytes(first));
    // Another order, another list, another batch size or model: the model runs.
    await embedThroughStore(store, CALL, ["bb", "a"], {}, model(["bb", "a"]));
    await embedThroughStore(store, CALL, ["a"], {}, model(["a"]));
    await embedThroughStore(store, { ...CALL, batchSize: 3 }, ["a", "bb"], {}, model(["a", "bb"]));
    await embedThroughStore(store, { ...CALL, model: "m2" }, ["a", "bb"], {}, model(["a", "bb"]));
    expect(computed).toBe(5);
    expect(store.map.size).toBe(5);
  });

  it("keys texts length-prefixed: two lists that join to the same string differ", () => {
    expect(embeddingCallKey("m", 32, ["ab", "c"])).not.toBe(embeddingCallKey("m", 32, ["a", "bc"]));
    expect(embeddingCallKey("m", 32, ["a"])).toBe(embeddingCallKey("m", 32, ["a"]));
  });

  it("a stored value of the wrong length is a miss and is replaced; an aborted signal rejects on a hit", async () => {
    const store = mapStore();
    const key = embeddingCallKey("m", 2, ["x"]);
    store.map.set(key, new Uint8Array(7));
    const v = await embedThroughStore(store, CALL, ["x"], {}, async () => [Float32Array.of(1, 2, 3)]);
    expect([...v[0]!]).toEqual([1, 2, 3]);
    expect(store.map.get(key)!.length).toBe(12);
    const ac = new AbortController();
    ac.abort();
    await expect(
      embedThroughStore(store, CALL, ["x"], { signal: ac.signal }, async () => [Float32Array.of(0, 0, 0)]),
    ).rejects.toMatchObject({ code: "aborted" });
  });
});

describe("USE-lite through the store", () => {
  it("in process and in the worker pool: the second call is the model's own bytes, with no model call", {
    timeout: 120_000,
  }, async () => {
    const store = mapStore();
    const texts = ["open a pull request", "post a message to a channel", "record staged changes"];
    const plain = await new UseLiteProvider().embed(texts);
    const local = new UseLiteProvider({ store });
    expect(bytes(await local.embed(texts))).toEqual(bytes(plain));
    expect(store.sets).toBe(1);
    const pool = new EmbeddingWorkerPool("use-lite", { workers: 1, store });
    try {
      expect(bytes(await pool.embed(texts))).toEqual(bytes(plain));
      expect(pool.stats().started).toBe(0); // answered from the store: no worker, no model
      expect(store.sets).toBe(1);
    } finally {
      await pool.close();
    }
  });
});

describe("a memory:// project and the user's cache directory", () => {
  const tools = [
    { id: "git.commit", description: "Record staged changes with a message" },
    { id: "github.create_pull_request", description: "Open a pull request from a branch" },
    { id: "slack.post_message", description: "Post a message to a Slack channel" },
  ];
  const entries = () => readdirSync(join(userCacheDir(), "toolgraph-cache", "embed-calls")).sort();

  async function openAndSearch() {
    const tg = await openToolgraph({
      home: "memory://",
      embeddings: "use-lite",
      recommendationLog: { enabled: false },
    });
    try {
      await tg.importCatalog({ tools });
      return (await tg.search({ intent: "open a pull request", limit: 3 })).results;
    } finally {
      await tg.close();
    }
  }

  it("keeps the model's answers; a second open of the same tools answers the same and embeds nothing new", {
    timeout: 180_000,
  }, async () => {
    const first = await openAndSearch();
    const kept = entries();
    expect(kept.length).toBeGreaterThanOrEqual(2); // the catalog's call and the query's
    const written = kept.map((f) => readFileSync(join(userCacheDir(), "toolgraph-cache", "embed-calls", f)));
    const second = await openAndSearch();
    expect(second).toEqual(first);
    expect(entries()).toEqual(kept);
    const folder = join(userCacheDir(), "toolgraph-cache", "embed-calls");
    for (const [i, f] of kept.entries()) expect(readFileSync(join(folder, f)).equals(written[i]!)).toBe(true);
  });

  it("a damaged entry is computed again by the model and rewritten", { timeout: 180_000 }, async () => {
    const first = await openAndSearch();
    const folder = join(userCacheDir(), "toolgraph-cache", "embed-calls");
    for (const f of entries()) writeFileSync(join(folder, f), "damaged");
    expect(await openAndSearch()).toEqual(first);
    for (const f of entries()) expect(readFileSync(join(folder, f)).length).toBeGreaterThan(100);
  });

  it("an unwritable cache directory only loses the gain", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "not a directory");
    const store = userEmbeddingStore({ TOOLGRAPH_CACHE_DIR: join(file, "cache") });
    expect(store.get("k")).toBeUndefined();
    expect(() => store.set("k", new Uint8Array(4))).not.toThrow();
  });
});
