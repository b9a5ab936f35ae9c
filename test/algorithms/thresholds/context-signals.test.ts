import { describe, expect, it } from "vitest";
import { extractContextSignals } from "../../../algorithms/thresholds/context-signals.ts";

const calm = { isProduction: false, isCriticalTask: false };

describe("extractContextSignals", () => {
  it("critical_production needs production AND a critical task", () => {
    const task = { urgency: "medium" as const, complexity: 0.5 };
    expect(extractContextSignals(task, { isProduction: true, isCriticalTask: true }).signals).toEqual([
      "critical_production",
    ]);
    expect(extractContextSignals(task, { isProduction: true, isCriticalTask: false }).signals).toEqual([]);
    expect(extractContextSignals(task, { isProduction: false, isCriticalTask: true }).signals).toEqual([]);
  });

  it("urgent_task on urgency high or on urgent keywords", () => {
    expect(extractContextSignals({ urgency: "high", complexity: 0.5 }, calm).signals).toEqual(["urgent_task"]);
    const kw = extractContextSignals({ urgency: "medium", hasUrgencyKeywords: true, complexity: 0.5 }, calm);
    expect(kw.signals).toEqual(["urgent_task"]);
    expect(kw.recommendation).toBe("down");
  });

  it("complex_task above 0.7 and simple_task below 0.3; neither at exactly 0.7 or 0.3", () => {
    expect(extractContextSignals({ urgency: "low", complexity: 0.71 }, calm).signals).toEqual(["complex_task"]);
    expect(extractContextSignals({ urgency: "low", complexity: 0.29 }, calm).signals).toEqual(["simple_task"]);
    expect(extractContextSignals({ urgency: "low", complexity: 0.7 }, calm).signals).toEqual([]);
    expect(extractContextSignals({ urgency: "low", complexity: 0.3 }, calm).signals).toEqual([]);
  });

  it("critical production comes first and recommends up", () => {
    const r = extractContextSignals({ urgency: "high", complexity: 0.9 }, { isProduction: true, isCriticalTask: true });
    expect(r.signals).toEqual(["critical_production", "urgent_task", "complex_task"]);
    expect(r.recommendation).toBe("up");
  });

  it("no signal → neutral", () => {
    expect(extractContextSignals({ urgency: "medium", complexity: 0.5 }, calm)).toMatchObject({
      signals: [],
      recommendation: "neutral",
    });
  });

  it("throws on complexity outside [0, 1]", () => {
    expect(() => extractContextSignals({ urgency: "low", complexity: 1.5 }, calm)).toThrow(/complexity/);
  });
});
