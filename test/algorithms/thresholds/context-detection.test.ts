import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  assessWorkflowHealth,
  createRuleBasedDetector,
  estimateComplexity,
  phraseMatcher,
  rankOperationTypes,
  stem,
} from "../../../algorithms/thresholds/context-detection.ts";
import type { WorkflowStep } from "../../../algorithms/thresholds/detector-chain.ts";
import { ThresholdError } from "../../../algorithms/thresholds/errors.ts";

const steps = (...ok: boolean[]): WorkflowStep[] => ok.map((success, i) => ({ tool: `t${i}`, success }));
const detector = createRuleBasedDetector();

describe("stem and phraseMatcher", () => {
  it("stems verb forms to one key", () => {
    expect(new Set(["create", "creates", "created", "creating"].map(stem))).toEqual(new Set(["creat"]));
    expect(new Set(["debug", "debugging", "debugged"].map(stem))).toEqual(new Set(["debug"]));
    expect(new Set(["fix", "fixes", "fixed", "fixing"].map(stem))).toEqual(new Set(["fix"]));
    expect(stem("process")).toBe("process");
  });

  it("matches whole words and phrases only", () => {
    expect(phraseMatcher("now").test("do it now!")).toBe(true);
    expect(phraseMatcher("now").test("i know")).toBe(false);
    expect(phraseMatcher("ci/cd").test("fix the ci/cd pipeline")).toBe(true);
    expect(phraseMatcher("component").test("two components")).toBe(true);
    expect(phraseMatcher("react").test("reactive")).toBe(false);
  });
});

describe("operation type", () => {
  it("each seed operation type from its verbs", () => {
    expect(rankOperationTypes("please analyze the logs")[0]).toBe("analysis");
    expect(rankOperationTypes("create a new page")[0]).toBe("creation");
    expect(rankOperationTypes("develop the parser")[0]).toBe("implementation");
    expect(rankOperationTypes("refactor the module")[0]).toBe("modification");
    expect(rankOperationTypes("debugging the crash")[0]).toBe("debugging");
    expect(rankOperationTypes("polish and refine the copy")[0]).toBe("iterative");
  });

  it("a shared verb goes by the tie order: 'fix' → debugging", () => {
    expect(rankOperationTypes("fix the login")).toEqual(["debugging", "modification", "iterative"]);
  });

  it("more verb hits win over the tie order: implement + build → creation", () => {
    // creation: implement, build (2); implementation: implement (1)
    expect(rankOperationTypes("implement and build the feature")[0]).toBe("creation");
  });

  it("no verb → no operation type", () => {
    expect(rankOperationTypes("hello there")).toEqual([]);
    expect(detector.detect({ text: "hello there" }, {}).operationType).toBeUndefined();
  });
});

describe("domain", () => {
  it("seed keywords pick the domain with most hits", () => {
    const d = detector.detect({ text: "The API endpoint of the server returns 500" }, {});
    expect(d.domain).toBe("backend");
  });

  it("workflow domains count as hits and unknown ones are kept", () => {
    const d = detector.detect(
      { text: "style the component", workflow: { steps: [], replans: 0, domains: ["billing"] } },
      {},
    );
    expect(d.domains).toEqual(["frontend", "billing"]);
  });

  it("project-configured domains are detected", () => {
    const custom = createRuleBasedDetector({ domains: { payments: ["invoice", "stripe", "refund"] } });
    const d = custom.detect({ text: "refund the stripe invoice" }, {});
    expect(d.domain).toBe("payments");
  });

  it("no keyword → no domain", () => {
    expect(detector.detect({ text: "hello" }, {}).domain).toBeUndefined();
  });
});

describe("complexity", () => {
  it("formula by hand: 2 steps, 2 tools, 1 domain → 0.1 + 0.1 + 0.0833 = 0.2833 (simple)", () => {
    expect(
      estimateComplexity({ steps: 2, distinctTools: 2, domains: 1, complexIndicator: false, simpleIndicator: false }),
    ).toBeCloseTo(0.283333, 6);
  });

  it("11 steps, 4 tools, 1 domain → 0.5 + 0.2 + 0.0833 = 0.7833 (complex)", () => {
    expect(
      estimateComplexity({ steps: 11, distinctTools: 4, domains: 1, complexIndicator: false, simpleIndicator: false }),
    ).toBeCloseTo(0.783333, 6);
  });

  it("indicators shift by ±0.15 and cancel each other", () => {
    const base = { steps: 5, distinctTools: 3, domains: 1 };
    // 0.25 + 0.15 + 0.083333 = 0.483333
    expect(estimateComplexity({ ...base, complexIndicator: false, simpleIndicator: false })).toBeCloseTo(0.483333, 6);
    expect(estimateComplexity({ ...base, complexIndicator: true, simpleIndicator: false })).toBeCloseTo(0.633333, 6);
    expect(estimateComplexity({ ...base, complexIndicator: false, simpleIndicator: true })).toBeCloseTo(0.333333, 6);
    expect(estimateComplexity({ ...base, complexIndicator: true, simpleIndicator: true })).toBeCloseTo(0.483333, 6);
  });

  it("is clamped to [0, 1]", () => {
    expect(
      estimateComplexity({ steps: 0, distinctTools: 0, domains: 0, complexIndicator: false, simpleIndicator: true }),
    ).toBe(0);
    expect(
      estimateComplexity({ steps: 50, distinctTools: 50, domains: 9, complexIndicator: true, simpleIndicator: false }),
    ).toBe(1);
  });

  it("the detector counts distinct tools from steps and the tool list", () => {
    const d = detector.detect(
      {
        text: "x",
        workflow: {
          steps: [
            { tool: "a", success: true },
            { tool: "a", success: true },
          ],
          replans: 0,
          tools: ["b"],
        },
      },
      {},
    );
    // steps 2 → 0.1; tools {a, b} → 0.25·0.4 = 0.1; domains 0 → 0
    expect(d.complexity).toBeCloseTo(0.2, 9);
  });
});

describe("urgency and critical", () => {
  for (const w of ["urgent", "ASAP", "immediately", "critical", "hotfix", "now"]) {
    it(`'${w}' → high urgency`, () => {
      const d = detector.detect({ text: `please deploy ${w}` }, {});
      expect(d.urgency).toBe("high");
      expect(d.urgentKeywords?.length).toBeGreaterThan(0);
    });
  }

  it("no rush → low; nothing → medium", () => {
    expect(detector.detect({ text: "no rush, fix the typo" }, {}).urgency).toBe("low");
    expect(detector.detect({ text: "fix the typo" }, {}).urgency).toBe("medium");
  });

  it("critical situations are flagged", () => {
    expect(detector.detect({ text: "production outage on checkout" }, {}).critical).toBe(true);
    expect(detector.detect({ text: "rename a variable" }, {}).critical).toBe(false);
  });
});

describe("workflow health", () => {
  it("no workflow → OnTrack, no rate", () => {
    expect(assessWorkflowHealth(undefined)).toMatchObject({ taskHealth: "OnTrack", workflowSuccessRate: undefined });
  });

  it("replans > 2 → AtRisk; exactly 2 is OnTrack", () => {
    expect(assessWorkflowHealth({ steps: steps(true), replans: 3 })).toMatchObject({
      taskHealth: "AtRisk",
      atRisk: true,
    });
    expect(assessWorkflowHealth({ steps: steps(true), replans: 2 }).taskHealth).toBe("OnTrack");
  });

  it("success rate < 0.5 → OffTrack; exactly 0.5 is OnTrack", () => {
    expect(assessWorkflowHealth({ steps: steps(true, false, false), replans: 0 })).toMatchObject({
      taskHealth: "OffTrack",
      offTrack: true,
    });
    expect(assessWorkflowHealth({ steps: steps(true, false), replans: 0 }).taskHealth).toBe("OnTrack");
  });

  it("both flags → OffTrack shown, both flags set", () => {
    expect(assessWorkflowHealth({ steps: steps(false), replans: 5 })).toMatchObject({
      taskHealth: "OffTrack",
      atRisk: true,
      offTrack: true,
    });
  });

  it("more than 3 consecutive trailing failures → frustrated; exactly 3 is not", () => {
    const four = assessWorkflowHealth({
      steps: steps(true, true, true, true, true, false, false, false, false),
      replans: 0,
    });
    expect(four.userStates).toEqual(["frustrated"]);
    expect(four.consecutiveFailures).toBe(4);
    expect(
      assessWorkflowHealth({ steps: steps(true, true, true, true, false, false, false), replans: 0 }).userStates,
    ).toEqual([]);
  });

  it("failures followed by a success are not consecutive at the end", () => {
    expect(
      assessWorkflowHealth({ steps: steps(false, false, false, false, true), replans: 0 }).consecutiveFailures,
    ).toBe(0);
  });

  it("throws on negative replans", () => {
    expect(() => assessWorkflowHealth({ steps: [], replans: -1 })).toThrow(ThresholdError);
  });
});

describe("inputKey", () => {
  const detector = createRuleBasedDetector({ domains: { billing: ["invoice", "refund"] } });
  const texts = [
    "",
    "fix the failing deploy now",
    "analyze the invoice data",
    "urgent: production outage in the database",
    "refactor a single file, no rush",
  ];
  const tools = ["a.x", "a.y", "b.z", "c.w", "d.v"];
  const input = fc.record({
    text: fc.constantFrom(...texts),
    workflow: fc.option(
      fc.record({
        steps: fc.array(
          fc.record({ tool: fc.option(fc.constantFrom(...tools), { nil: undefined }), success: fc.boolean() }),
          { maxLength: 8 },
        ),
        replans: fc.integer({ min: 0, max: 4 }),
        tools: fc.option(fc.array(fc.constantFrom(...tools), { maxLength: 3 }), { nil: undefined }),
        domains: fc.option(fc.array(fc.constantFrom("billing", "database", "ops"), { maxLength: 3 }), {
          nil: undefined,
        }),
      }),
      { nil: undefined },
    ),
  });

  it("is equal only for inputs the detector answers equally (random pairs and renamed tools)", () => {
    fc.assert(
      fc.property(input, input, fc.constantFrom(...tools), (x, y, fresh) => {
        const kx = detector.inputKey!(x);
        if (kx === detector.inputKey!(y)) expect(detector.detect(y, {})).toEqual(detector.detect(x, {}));
        // Every tool renamed one-to-one (names prefixed): same distinct count, same key, same detection.
        if (x.workflow) {
          const renamed = {
            ...x,
            workflow: {
              ...x.workflow,
              steps: x.workflow.steps.map((s) => ({ ...s, tool: s.tool === undefined ? undefined : `r.${s.tool}` })),
              tools: x.workflow.tools?.map((t) => `r.${t}`),
            },
          };
          expect(detector.inputKey!(renamed)).toBe(kx);
          expect(detector.detect(renamed, {})).toEqual(detector.detect(x, {}));
          // One more distinct tool changes the key (complexity reads the count).
          const more = { ...x, workflow: { ...x.workflow, tools: [...(x.workflow.tools ?? []), `new.${fresh}`] } };
          expect(detector.inputKey!(more)).not.toBe(kx);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("separates what detect reads by hand: outcomes, replans, text and domains", () => {
    const wf = (outcomes: boolean[], replans = 0, domains?: string[]) => ({
      steps: outcomes.map((success, i) => ({ tool: `t${i}`, success })),
      replans,
      ...(domains ? { domains } : {}),
    });
    const k = (text: string, w?: ReturnType<typeof wf>) => detector.inputKey!({ text, workflow: w });
    expect(k("", wf([true, false]))).not.toBe(k("", wf([false, true])));
    expect(k("", wf([true], 0))).not.toBe(k("", wf([true], 3)));
    expect(k("fix it", wf([true]))).not.toBe(k("fix that", wf([true])));
    expect(k("", wf([true], 0, ["billing"]))).not.toBe(k("", wf([true], 0)));
    expect(k("")).not.toBe(k("", wf([])));
  });
});
