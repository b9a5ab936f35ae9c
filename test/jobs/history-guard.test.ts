/**
 * The history guard through the library (algorithms/search/history-guard.ts): over a repetitive history (two
 * requests, 40 executions, all served by the billing tools), a request unlike any past one is answered by the
 * descriptions alone — every score is the content score β·cos⁺ + (1 − β)·BM25ⁿ, no memory or usage lift — and the
 * tool whose description it names ranks first; the repeated request still gets its history in full. Capability
 * match weighs the memory's capability votes by the same trust.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const TOOLS = [
  { id: "billing.create_invoice", description: "Create an invoice for a customer order" },
  { id: "billing.send_invoice", description: "Send an invoice to the customer by email" },
  { id: "text.translate", description: "Translate a paragraph of text into another language such as French or German" },
  { id: "weather.forecast", description: "Get the weather forecast for a city" },
  { id: "calendar.create_event", description: "Create a calendar event with attendees" },
];
const CAPABILITIES = [
  {
    id: "billing",
    name: "Bill a customer",
    description: "Create the invoice of an order and send it",
    tools: ["billing.create_invoice", "billing.send_invoice"],
  },
  { id: "translation", name: "Translate", description: "Translate text", tools: ["text.translate"] },
];
const PAST = ["bill the customer for the monthly order", "invoice the customer and email it"];

let tg: Toolgraph;
beforeAll(async () => {
  tg = await openToolgraph({
    home: "memory://",
    project: "guard",
    embeddings: "hash:256",
    now: () => NOW,
    resultCacheSize: 0,
    recommendationLog: { enabled: false },
  });
  await tg.importCatalog({ tools: TOOLS, capabilities: CAPABILITIES });
  await tg.importTraces(
    Array.from({ length: 40 }, (_, i) => ({
      id: `bill-${i}`,
      intent: PAST[i % 2],
      capability: "billing",
      startedAt: new Date(NOW - (40 - i) * 3_600_000).toISOString(),
      success: true,
      steps: [
        { tool: "billing.create_invoice", success: true },
        { tool: "billing.send_invoice", success: true },
      ],
    })),
  );
  await tg.settle();
}, 120_000);
afterAll(async () => {
  await tg?.close();
});

describe("history guard (library)", () => {
  it("a novel request over a repetitive history: ranked by description alone, the guard named", async () => {
    const r = await tg.search({ intent: "translate this paragraph into french", limit: 5 });
    // No word in common with a past request, and hash cosines of unrelated texts are far below 0.6: the best
    // similarity 0.5·cos⁺ + 0.5·0 is below the ramp's 0.4, so the trust is exactly 0.
    expect(r.memory.guard.similarity).not.toBeNull();
    expect(r.memory.guard.similarity!).toBeLessThan(0.3);
    expect(r.memory.guard.trust).toBe(0);
    expect(r.memory.guard.reason).toMatch(/^history guard 0\.00: the best similarity to a past request is 0\.\d\d/);
    expect(r.results[0]!.tool).toBe("text.translate");
    // With trust 0 and the default weights (β 0.5, content 1), every score is the content score alone.
    for (const item of r.results) {
      const b = item.breakdown;
      expect(item.score).toBeCloseTo(0.5 * Math.max(0, b.cosine) + 0.5 * b.bm25Norm, 12);
      expect(b.graph).toBe(0);
    }
    // The history's tools get no lift, and their explanation says why.
    const billing = r.results.find((x) => x.tool === "billing.send_invoice");
    if (billing)
      expect(billing.explanation).toMatch(
        /memory and usage × 0\.00 \(history guard: best similarity to a past request 0\.\d\d\)/,
      );
  });

  it("the repeated request keeps its history in full (trust 1)", async () => {
    const r = await tg.search({ intent: PAST[1]!, limit: 5 });
    expect(r.memory.guard.similarity!).toBeGreaterThanOrEqual(0.9);
    expect(r.memory.guard.trust).toBe(1);
    expect(
      r.results
        .slice(0, 2)
        .map((x) => x.tool)
        .sort(),
    ).toEqual(["billing.create_invoice", "billing.send_invoice"]);
    expect(r.results[0]!.breakdown.memory).toBeGreaterThan(0);
    expect(r.results[0]!.score).toBeGreaterThan(
      0.5 * Math.max(0, r.results[0]!.breakdown.cosine) + 0.5 * r.results[0]!.breakdown.bm25Norm,
    );
  });

  // Capability match weighs the memory's capability votes by the same trust (algorithms/search/capability-evidence.ts):
  // semantic = 1 − (1 − content)(1 − 0.8·toolEvidence)(1 − 0.8·τ·vote), content = 0.7·cos⁺ + 0.3·BM25ⁿ of its texts.
  const semanticOf = (b: { cosine: number; bm25Norm: number; toolEvidence: number; memory: number }, trust: number) =>
    1 -
    (1 - (0.7 * Math.max(0, b.cosine) + 0.3 * b.bm25Norm)) * (1 - 0.8 * b.toolEvidence) * (1 - 0.8 * trust * b.memory);

  it("capability match: the memory's votes weighed by the search's trust, from none to full", async () => {
    // A novel request (no similar past request), one sharing a word with a past request ("email"), a repeat.
    const intents = ["translate this paragraph into french", "email me the weather forecast for Paris", PAST[1]!];
    const seen: { trust: number; vote: number; semantic: number; unguarded: number }[] = [];
    for (const intent of intents) {
      const search = await tg.search({ intent, limit: 1 });
      const caps = await tg.matchCapabilities({ intent, limit: 2 });
      const billing = caps.results.find((c) => c.capability === "billing")!;
      const b = billing.breakdown as typeof billing.breakdown & { historyTrust: number; toolEvidence: number };
      expect(b.historyTrust).toBe(search.memory.guard.trust);
      expect(b.semantic).toBeCloseTo(semanticOf(b, b.historyTrust), 12);
      seen.push({ trust: b.historyTrust, vote: b.memory, semantic: b.semantic, unguarded: semanticOf(b, 1) });
    }
    expect(seen[0]).toMatchObject({ trust: 0, vote: 0 });
    // The related request: the billing traces vote, and the guard takes part of their weight away.
    expect(seen[1]!.vote).toBeGreaterThan(0);
    expect(seen[1]!.trust).toBeGreaterThan(0);
    expect(seen[1]!.trust).toBeLessThan(1);
    expect(seen[1]!.semantic).toBeLessThan(seen[1]!.unguarded);
    // The repeat: full trust, the votes count in full.
    expect(seen[2]!.trust).toBe(1);
    expect(seen[2]!.vote).toBeGreaterThan(0);
    expect(seen[2]!.semantic).toBeCloseTo(seen[2]!.unguarded, 12);
  });
});
