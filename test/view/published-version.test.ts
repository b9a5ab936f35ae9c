/**
 * Reads while a staged catalog write readies the next version (Engine.staged, src/view/published.ts): a search
 * and a tool_info issued while a sync of 3,000 renamed tools is in progress — once before its rows are written,
 * once after they are written and readied — answer from the version published before it, and before it is
 * published (the write waits for their answers: a read that waited for the write would never answer, and the
 * test would fail at its timeout); once it is published, reads see the new tools. Writes inside the scope see
 * their own version; an execution recorded meanwhile is seen once published. Real embedded database, hash
 * embeddings.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddingProvider, parseEmbeddingSpec } from "../../src/embeddings/create.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

let tg: Toolgraph;

const tools = (generation: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `srv.${generation}_tool_${i}`,
    server: "srv",
    description: `${generation} tool number ${i}: converts quarterly ${generation} widget reports`,
  }));

const top = async (intent: string) =>
  ((await tg.search({ intent, limit: 3 })) as { results: { tool: string }[] }).results.map((r) => r.tool);

/** A promise and its resolver. */
function signal<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "published", embeddings: "hash:64" });
  await tg.syncServerTools("srv", tools("alpha", 300));
  await tg.warmUp("search");
}, 120_000);

afterAll(async () => {
  await tg?.close();
});

describe("reads while a staged catalog write is in progress", () => {
  it("answer from the published version before the write is published, and see the new one after", async () => {
    expect(await top("alpha tool number 7")).toContain("srv.alpha_tool_7");
    const events: string[] = [];
    const began = signal();
    const readied = signal<number>();
    const answered = signal();
    const engine = engineOf(tg);
    const write = tg.staged(async () => {
      began.resolve();
      const r = await tg.syncServerTools("srv", tools("beta", 3000), { embed: false });
      // The write's own reads see its version.
      expect((await engine.snapshot("published")).version).toBe(r.graphVersion);
      await tg.warmUp("search");
      events.push("readied");
      readied.resolve(r.graphVersion);
      await answered.promise;
      events.push("published");
    });
    await began.promise;
    const before = (await engine.snapshot("published")).version;
    // Issued as the write begins (its rows not yet written) …
    const early = top("alpha tool number 7").then((r) => {
      events.push("early search");
      return r;
    });
    const next = await readied.promise;
    expect(next).toBeGreaterThan(before);
    // … and once the new version is written and readied, but not published.
    const late = top("beta tool number 7").then((r) => {
      events.push("late search");
      return r;
    });
    const info = tg.toolInfo({ tool: "srv.alpha_tool_7" }) as Promise<{ tool: { id: string; available: boolean } }>;
    // A record while the write is staged (writes are not held by it): acknowledged, so seen once published.
    const recorded = tg.recordExecution({
      id: "during-the-sync",
      startedAt: "2026-11-27T12:00:00.000Z",
      success: true,
      steps: [{ tool: "srv.beta_tool_1" }, { tool: "srv.beta_tool_2" }],
    });
    const [e, l, i, rec] = await Promise.all([early, late, info, recorded]);
    expect(rec.inserted).toBe(1);
    expect((await engine.snapshot("published")).version).toBe(before);
    answered.resolve();
    await write;
    expect(events.slice(-3).sort()).toEqual(["late search", "published", "readied"].sort());
    expect(events.indexOf("late search")).toBeLessThan(events.indexOf("published"));
    expect(events.indexOf("early search")).toBeLessThan(events.indexOf("published"));
    // The previous version: alpha tools available, no beta tool in it.
    expect(e).toContain("srv.alpha_tool_7");
    expect(l.every((t) => t.startsWith("srv.alpha_"))).toBe(true);
    expect(i.tool).toMatchObject({ id: "srv.alpha_tool_7", available: true });
    // Published: the new tools are found, the unlisted ones are not offered.
    expect((await engine.snapshot("published")).version).toBe(next + 1); // the sync, then the record
    const used = (await tg.toolInfo({ tool: "srv.beta_tool_1" })) as { stats: { executions: number } };
    expect(used.stats.executions).toBe(1);
    const after = await top("beta tool number 7");
    expect(after[0]).toBe("srv.beta_tool_7");
    expect(after.every((t) => t.startsWith("srv.beta_"))).toBe(true);
  }, 120_000);

  it("a failed write publishes nothing new and leaves reads on the current version", async () => {
    const engine = engineOf(tg);
    const version = (await engine.snapshot("published")).version;
    await expect(
      tg.staged(async () => {
        throw new Error("the upstream went away");
      }),
    ).rejects.toThrow(/went away/);
    expect((await engine.snapshot("published")).version).toBe(version);
    expect((await top("beta tool number 9"))[0]).toBe("srv.beta_tool_9");
  }, 60_000);
});

describe("a staged write while the catalog's embeddings are computed", () => {
  it("a search answers lexically from the published version, not waiting for the embeddings", async () => {
    // Hash embeddings held until the test releases them (the stand-in for a slow local model).
    const inner = createEmbeddingProvider(parseEmbeddingSpec("hash:64"));
    const release = signal();
    const provider = {
      model: inner.model,
      dimensions: inner.dimensions,
      async embed(texts: readonly string[]) {
        await release.promise;
        return inner.embed(texts);
      },
    };
    const held = await openToolgraph({ home: "memory://", database: "", project: "held", embeddings: provider });
    try {
      held.answerWhileEmbedding("lexical");
      await held.syncServerTools("srv", tools("gamma", 200), { embed: false });
      await held.warmUp("search"); // the lexical index; the full build waits for the embeddings
      const answered = signal();
      const write = held.staged(async () => {
        await held.syncServerTools("srv", tools("delta", 200), { embed: false });
        await held.warmUp("search");
        await answered.promise;
      });
      const r = (await held.search({ intent: "gamma tool number 7", limit: 3 })) as {
        degraded?: string;
        results: { tool: string }[];
      };
      answered.resolve();
      await write;
      expect(r.degraded).toBe("embedding");
      expect(r.results[0]!.tool).toBe("srv.gamma_tool_7");
    } finally {
      release.resolve();
      await held.close();
    }
  }, 60_000);
});
