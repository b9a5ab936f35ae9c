/**
 * The history guard's prior through the library (src/jobs/guard-prior.ts, algorithms/search/guard-prior.ts):
 * before any fit, a project whose past requests answer each other better than its descriptions do gets a
 * weaker guard, one whose descriptions answer better keeps the full guard, and `stats` shows the prior with its
 * evidence. Ten topics, four executions each, every execution its own intent group (one shared topic word and
 * three words of its own: Jaccard 1/7 < 0.25), 40 groups ≥ the 30 the prior needs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULTS } from "../../algorithms/search/guard-prior.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const TOPICS = ["weather", "invoice", "flight", "recipe", "stock", "lyrics", "parcel", "museum", "vaccine", "mortgage"];
"alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber bronze cedar dune ember fjord glade heron iris jade karst lotus maple nectar".split(
  " ",
);

/** A made-up word of its own for every number: "v" + the number in letters (base 26) + "k". */
function word(x: number): string {
  let out = "";
  for (let v = x + 26; v > 0; v = Math.floor(v / 26)) out = String.fromCharCode(97 + (v % 26)) + out;
  return `v${out}k`;
}

/** Tool k serves topic k; `informative` descriptions name the topic, the others are the same words for every tool. */
function catalog(informative: boolean) {
  return {
    tools: TOPICS.map((t, k) => ({
      id: `svc.tool_${k}`,
      description: informative ? `Answers ${t} requests` : "Generic service endpoint for internal use",
    })),
  };
}

function traces() {
  return TOPICS.flatMap((topic, k) =>
    Array.from({ length: 4 }, (_, i) => {
      const n = k * 4 + i;
      const words = [0, 1, 2].map((salt) => word(n * 3 + salt));
      return {
        id: `e-${n}`,
        intent: `${topic} ${words.join(" ")}`,
        startedAt: new Date(NOW - (40 - n) * 3_600_000).toISOString(),
        success: true,
        steps: [{ tool: `svc.tool_${k}`, success: true }],
      };
    }),
  );
}

const open: Toolgraph[] = [];
async function project(name: string, informative: boolean): Promise<Toolgraph> {
  const tg = await openToolgraph({
    home: "memory://",
    project: name,
    embeddings: "hash:256",
    now: () => NOW,
    resultCacheSize: 0,
    recommendationLog: { enabled: false },
  });
  open.push(tg);
  await tg.importCatalog(catalog(informative));
  await tg.importTraces(traces());
  await tg.settle();
  return tg;
}
afterAll(async () => {
  for (const tg of open) await tg.close();
});

describe("the guard's prior (library)", () => {
  it("descriptions that say nothing: the other requests' memory wins, the guard is lifted before any fit", async () => {
    const tg = await project("vague", false);
    const stats = await tg.stats();
    const prior = stats.learning.searchWeights.guardPrior;
    expect(prior.groups).toBe(40);
    expect(prior.groups).toBeGreaterThanOrEqual(DEFAULTS.minGroups);
    expect(prior.memory).toBeGreaterThan(prior.content);
    expect(prior.lower).toBeGreaterThan(0);
    expect(prior.strength).toBeLessThan(1);
    // No fit is stored yet: the weights in force carry the prior.
    expect(stats.learning.searchWeights.fit).toBeNull();
    expect(stats.learning.searchWeights.inForce.historyGuard).toBe(prior.strength);
    const r = await tg.search({ intent: "parcel tracking", limit: 3 });
    expect(r.weights.historyGuard).toBe(prior.strength);
    expect(r.results[0]!.tool).toBe("svc.tool_6");
  });

  it("descriptions that name the topic: they answer better than the memory, the full guard stays", async () => {
    const tg = await project("clear", true);
    const prior = (await tg.stats()).learning.searchWeights.guardPrior;
    expect(prior.groups).toBe(40);
    expect(prior.content).toBeGreaterThanOrEqual(prior.memory);
    expect(prior.strength).toBe(1);
    const r = await tg.search({ intent: "parcel tracking", limit: 3 });
    expect(r.weights.historyGuard).toBe(1);
  });
});

describe("the guard's prior kept in the data directory (a later process reads it)", () => {
  const home = mkdtempSync(join(tmpdir(), "tg-prior-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const openHome = () =>
    openToolgraph({
      home,
      project: "kept",
      embeddings: "hash:256",
      now: () => NOW,
      resultCacheSize: 0,
      recommendationLog: { enabled: false },
    });
  const folder = join(home, "toolgraph-cache", "guard-prior");
  const SENTINEL = [0.25, 40, 0.9, 0.1, 0.5];

  it("is measured and stored once, read back by the next open at the same graph version, measured again after a write", async () => {
    const writer = await openHome();
    await writer.importCatalog(catalog(false));
    await writer.importTraces(traces());
    await writer.close();

    const first = await openHome();
    const measured = (await first.stats()).learning.searchWeights.guardPrior;
    await first.close();
    expect(measured.groups).toBe(40);
    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    const file = join(folder, files[0]!);
    const original = readFileSync(file);

    // The same numbers from the file, bit for bit (a process that measured would find these).
    const second = await openHome();
    expect((await second.stats()).learning.searchWeights.guardPrior).toEqual(measured);
    await second.close();

    // Read, not measured: a stored value that no measurement gives is what the next open answers with.
    const payload = Buffer.from(Float64Array.from(SENTINEL).buffer);
    writeFileSync(file, Buffer.concat([original.subarray(0, original.length - payload.length), payload]));
    const third = await openHome();
    const read = (await third.stats()).learning.searchWeights.guardPrior;
    expect([read.strength, read.groups, read.memory, read.content, read.lower]).toEqual(SENTINEL);
    expect((await third.search({ intent: "parcel tracking", limit: 3 })).weights.historyGuard).toBe(0.25);
    // A recorded execution moves the graph version: the next open measures again.
    await third.recordExecution({
      id: "e-new",
      intent: "parcel where is it",
      startedAt: new Date(NOW).toISOString(),
      success: true,
      steps: [{ tool: "svc.tool_6", success: true }],
    });
    await third.close();
    const fourth = await openHome();
    const again = (await fourth.stats()).learning.searchWeights.guardPrior;
    await fourth.close();
    expect(again.strength).not.toBe(0.25);
    expect(again.groups).toBe(41);
    expect(readdirSync(folder)).toHaveLength(2);
  });
});
