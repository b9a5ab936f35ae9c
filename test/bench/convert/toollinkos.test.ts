import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATA_ROOT, readJsonFile } from "../../../bench/convert/common.ts";
import type { TlosDependency } from "../../../bench/convert/toollinkos.ts";
import {
  applyIndirectPolicy,
  breakTwoCycles,
  convertToolLinkOs,
  keepDirection,
  parseTlosInstance,
  prerequisiteClosure,
  tlosDependencies,
} from "../../../bench/convert/toollinkos.ts";

const dep = (from: string, to: string, type = "TOOL_INDIRECTLY_DEPENDS_ON"): TlosDependency => ({ from, to, type });

describe("ToolLinkOS two-cycle rule", () => {
  it("get_* before set_*", () => {
    expect(keepDirection(dep("get_wifi_status", "set_wifi_status"), dep("set_wifi_status", "get_wifi_status"))).toBe(
      true,
    );
    expect(keepDirection(dep("set_wifi_status", "get_wifi_status"), dep("get_wifi_status", "set_wifi_status"))).toBe(
      false,
    );
  });

  it("total before per_capita", () => {
    expect(
      keepDirection(
        dep("get_total_gdp_by_city", "get_gdp_per_capita_by_city"),
        dep("get_gdp_per_capita_by_city", "get_total_gdp_by_city"),
      ),
    ).toBe(true);
  });

  it("a DIRECT edge wins over an INDIRECT one", () => {
    expect(keepDirection(dep("set_x", "get_x", "TOOL_DIRECTLY_DEPENDS_ON"), dep("get_x", "set_x"))).toBe(true);
  });

  it("fallback: lexicographically smaller prerequisite", () => {
    expect(keepDirection(dep("a", "b"), dep("b", "a"))).toBe(true);
  });

  it("breakTwoCycles drops exactly one direction; policies", () => {
    const deps = [dep("get_a", "set_a"), dep("set_a", "get_a"), dep("x", "y", "TOOL_DIRECTLY_DEPENDS_ON")];
    expect(breakTwoCycles(deps)).toEqual({ kept: [deps[0], deps[2]], dropped: [deps[1]] });
    expect(applyIndirectPolicy(deps, "keep")).toHaveLength(3);
    expect(applyIndirectPolicy(deps, "drop-indirect")).toEqual([deps[2]]);
  });

  it("repeated pairs keep the DIRECT type; unknown prerequisites are noted", () => {
    const { deps, notes } = tlosDependencies([
      { name: "a", description: "", parameters: [], depends_on: [] },
      {
        name: "b",
        description: "",
        parameters: [],
        depends_on: [
          { name: "a", dependence_type: "TOOL_INDIRECTLY_DEPENDS_ON" },
          { name: "a", dependence_type: "PARAMETER_DIRECTLY_DEPENDS_ON" },
          { name: "ghost", dependence_type: "TOOL_DIRECTLY_DEPENDS_ON" },
        ],
      },
    ]);
    expect(deps).toEqual([dep("a", "b", "PARAMETER_DIRECTLY_DEPENDS_ON")]);
    expect(notes).toHaveLength(1);
  });

  it("closure follows cycles without looping", () => {
    const prereqs = new Map([
      ["m", ["p"]],
      ["p", ["q"]],
      ["q", ["p"]],
    ]);
    expect(prerequisiteClosure("m", prereqs)).toEqual(["p", "q"]);
  });
});

describe("ToolLinkOS instances", () => {
  it("instance 0 (share_location_via_email): hand-checked order and edges", () => {
    // depends_on: share ← validate_email, share ← get_current_location, get_current_location ← get_location_service_status,
    // get_location_service_status ↔ set_location_service_status (two-cycle: keep get → set).
    // Golden list order: share, set_loc, get_cur, get_loc, validate. Kahn with golden-list ties:
    //   ready {set_loc? no (needs get_loc), get_loc, validate} → get_loc, then set_loc, get_cur, validate, share.
    const raw = (readJsonFile(join(DATA_ROOT, "toollinkos", "toollinkos", "instances.json")) as unknown[])[0];
    const tools = [
      ...(readJsonFile(join(DATA_ROOT, "toollinkos", "toollinkos", "core_tools.json")) as never[]),
      ...(readJsonFile(join(DATA_ROOT, "toollinkos", "toollinkos", "regular_tools.json")) as never[]),
    ];
    const { deps } = tlosDependencies(tools);
    const inst = parseTlosInstance(raw, 0, breakTwoCycles(deps).kept);
    expect(inst.steps).toEqual([
      "tlos:get_location_service_status",
      "tlos:set_location_service_status",
      "tlos:get_current_location",
      "tlos:validate_email",
      "tlos:share_location_via_email",
    ]);
    expect(inst.edges).toEqual([
      [0, 1],
      [0, 2],
      [2, 4],
      [3, 4],
    ]);
    expect(inst.capability).toBe("tlos:cap:share_location_via_email");
    expect(inst.partialOrder).toBe(true);
  });

  it("first 20 instances: catalog, capabilities, split and cases", () => {
    const ds = convertToolLinkOs({ limit: 20 });
    expect(ds.catalog.tools).toHaveLength(573);
    expect(ds.catalog.capabilities).toHaveLength(523);
    expect(ds.edges).toHaveLength(1494);
    expect(ds.edges[0]).toMatchObject({ type: "dependency", source: "template" });
    expect(ds.splitSizes.train + ds.splitSizes.test).toBe(20);
    expect(ds.traces).toHaveLength(ds.splitSizes.train);
    const cases = ds.evaluation.test!;
    for (const kind of ["retrieval", "next-step", "dag", "capability"])
      expect(cases.filter((c) => c.kind === kind)).toHaveLength(ds.splitSizes.test);
    const core = ds.catalog.tools.find((t) => t.id === "tlos:get_current_date")!;
    expect(core).toMatchObject({
      server: "core",
      tags: ["core"],
      inputSchema: { type: "object", properties: {}, required: [] },
    });
    const cap = ds.catalog.capabilities.find((c) => c.id === "tlos:cap:share_location_via_email")!;
    // closure over all pairs: validate_email, get_current_location, get_location_service_status, set_location_service_status
    expect(new Set(cap.tools)).toEqual(
      new Set(
        [
          "share_location_via_email",
          "validate_email",
          "get_current_location",
          "get_location_service_status",
          "set_location_service_status",
        ].map((n) => `tlos:${n}`),
      ),
    );
    for (const t of ds.catalog.tools) expect(t.examples).toBeUndefined();
  });

  it("full data: every golden set lies inside its capability; 1,569 instances split 784/785", () => {
    const ds = convertToolLinkOs();
    const caps = new Map(ds.catalog.capabilities.map((c) => [c.id, new Set(c.tools)]));
    const all = [...ds.trainInstances, ...ds.testInstances.test!];
    expect(all).toHaveLength(1569);
    expect(ds.splitSizes).toEqual({ train: 784, test: 785, groups: 1560 });
    for (const i of all) for (const r of i.relevant) expect(caps.get(i.capability!)!.has(r)).toBe(true);
    expect(ds.catalog.capabilities.filter((c) => c.dependsOn !== undefined).length).toBeGreaterThan(0);
  });

  it("declared-edge policies give 1,494 / 1,473 / 1,080 edges", () => {
    expect(convertToolLinkOs({ limit: 1, indirect: "keep" }).edges).toHaveLength(1494);
    expect(convertToolLinkOs({ limit: 1, indirect: "break-two-cycles" }).edges).toHaveLength(1473);
    expect(convertToolLinkOs({ limit: 1, indirect: "drop-indirect" }).edges).toHaveLength(1080);
  });
});
