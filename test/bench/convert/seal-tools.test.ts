import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATA_ROOT, readJsonlFile } from "../../../bench/convert/common.ts";
import {
  convertSealTools,
  parseSealInstance,
  sealCallingEdges,
  sealToolToCatalog,
} from "../../../bench/convert/seal-tools.ts";

const root = join(DATA_ROOT, "seal-tools", "Seal-Tools_Dataset");
const recordById = (file: string, id: string) =>
  readJsonlFile(join(root, file)).find((r) => (r as { id: string }).id === id);

describe("Seal-Tools parsing", () => {
  it("tool record → catalog tool with JSON Schema, server = top-level field", () => {
    const t = sealToolToCatalog({
      api_name: "analyzeEvidence",
      api_description: "Analyze the chemical evidence",
      field: "Chemical Engineering/Forensic engineering",
      parameters: {
        evidence_type: { type: "str", description: "Type" },
        priority: { type: "int", description: "Level" },
      },
      required: ["evidence_type"],
      responses: {},
    });
    expect(t).toEqual({
      id: "seal:analyzeEvidence",
      name: "analyzeEvidence",
      description: "Analyze the chemical evidence",
      inputSchema: {
        type: "object",
        properties: {
          evidence_type: { type: "string", description: "Type" },
          priority: { type: "integer", description: "Level" },
        },
        required: ["evidence_type"],
      },
      server: "Chemical Engineering",
      tags: ["Forensic engineering"],
    });
  });

  it("API_call_k references, including API_call_k['field'] and nested values", () => {
    const calling = [
      { api: "A", parameters: {}, responses: ["API_call_0"] },
      { api: "B", parameters: { x: "API_call_0['name']" }, responses: ["API_call_1"] },
      { api: "C", parameters: { y: ["API_call_1", { z: "API_call_0 response" }] }, responses: ["API_call_2"] },
    ];
    // B reads A's API_call_0 → [0,1]; C reads B's API_call_1 → [1,2] and A's API_call_0 → [0,2]
    expect(sealCallingEdges(calling)).toEqual([
      [0, 1],
      [1, 2],
      [0, 2],
    ]);
  });

  it("API_call_1 does not match API_call_10", () => {
    const calling = [
      { api: "A", parameters: {}, responses: ["API_call_1"] },
      { api: "B", parameters: { x: "API_call_10" }, responses: [] },
    ];
    expect(sealCallingEdges(calling)).toEqual([]);
  });

  it("a reference to a later call reorders the steps stably", () => {
    // A reads API_call_2, produced by B → edge B→A; steps become B, A, C and the edge [0, 1]
    const inst = parseSealInstance(
      {
        id: "x-1",
        query: "q",
        calling: [
          { api: "A", parameters: { target: "API_call_2" }, responses: ["API_call_0", "API_call_1"] },
          { api: "B", parameters: {}, responses: ["API_call_2"] },
          { api: "C", parameters: {}, responses: ["API_call_3"] },
        ],
      },
      "test_out_domain",
    );
    expect(inst.steps).toEqual(["seal:B", "seal:A", "seal:C"]);
    expect(inst.edges).toEqual([[0, 1]]);
  });

  it("real nested instance test_in_domain-difficult-237 (hand-checked edges)", () => {
    // createITProject → API_call_0; addTask(project_id=API_call_0); removeProjectMember(project_id=API_call_0)
    const inst = parseSealInstance(
      recordById("test_in_domain.jsonl", "test_in_domain-difficult-237"),
      "test_in_domain",
    );
    expect(inst.id).toBe("seal:test_in_domain-difficult-237");
    expect(inst.steps).toEqual(["seal:createITProject", "seal:addTask", "seal:removeProjectMember"]);
    expect(inst.edges).toEqual([
      [0, 1],
      [0, 2],
    ]);
    expect(inst.partialOrder).toBe(false);
  });

  it("real forward reference test_out_domain-difficult-241", () => {
    // performSecurityAudit(target=API_call_2) where API_call_2 is getEthicsOfTechnology's response
    const inst = parseSealInstance(
      recordById("test_out_domain.jsonl", "test_out_domain-difficult-241"),
      "test_out_domain",
    );
    expect(inst.steps).toEqual([
      "seal:getEthicsOfTechnology",
      "seal:performSecurityAudit",
      "seal:analyzeEthicalImplications",
    ]);
    expect(inst.edges).toEqual([[0, 1]]);
  });

  it("rejects a record without calling", () => {
    expect(() => parseSealInstance({ id: "x", query: "q" }, "dev")).toThrow(
      expect.objectContaining({ code: "bad-record" }),
    );
  });
});

describe("convertSealTools", () => {
  it("first 20 records of each file", () => {
    const ds = convertSealTools({ limit: 20 });
    expect(ds.catalog.tools).toHaveLength(4076);
    expect(ds.catalog.capabilities).toEqual([]);
    expect(ds.edges).toEqual([]);
    expect(ds.traces).toHaveLength(20);
    expect(ds.traces[0]).toMatchObject({ id: "seal:dev-easy-0", success: true, startedAt: "2024-01-01T00:00:00.000Z" });
    expect(ds.traces[0]!.steps).toEqual([
      { tool: "seal:getHealthWorkforce", success: true, at: "2024-01-01T00:00:00.000Z" },
    ]);
    // the first 20 records of each test file are single-call: retrieval cases only
    expect(ds.evaluation.test_in_domain!.map((c) => c.kind)).toEqual(new Array(20).fill("retrieval"));
    expect(ds.evaluation.test_out_domain![0]).toMatchObject({ kind: "retrieval", id: "seal:test_out_domain-easy-0" });
    expect(ds.notes).toEqual([]);
  });

  it("full data: 85 nested instances with 104 edges; official split sizes", () => {
    const ds = convertSealTools();
    const all = [...ds.trainInstances, ...ds.testInstances.test_in_domain!, ...ds.testInstances.test_out_domain!];
    const nested = all.filter((i) => i.edges.length > 0);
    expect(nested).toHaveLength(85);
    expect(nested.reduce((s, i) => s + i.edges.length, 0)).toBe(104);
    expect([
      ds.trainInstances.length,
      ds.testInstances.test_in_domain!.length,
      ds.testInstances.test_out_domain!.length,
    ]).toEqual([700, 700, 654]);
    const tools = new Set(ds.catalog.tools.map((t) => t.id));
    for (const i of all) for (const s of i.steps) expect(tools.has(s)).toBe(true);
    // next-step / dag only for multi-call instances
    expect(ds.evaluation.test_in_domain!.filter((c) => c.kind === "dag")).toHaveLength(500);
    expect(ds.evaluation.test_out_domain!.filter((c) => c.kind === "next-step")).toHaveLength(560);
  });
});
