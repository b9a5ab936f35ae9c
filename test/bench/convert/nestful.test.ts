import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATA_ROOT, readJsonFile } from "../../../bench/convert/common.ts";
import {
  convertNestful,
  humanizeName,
  nestfulCallEdges,
  nestfulSpecToTool,
  parseNestfulSample,
} from "../../../bench/convert/nestful.ts";
import { catalogSchema } from "../../../src/formats/schemas.ts";

const firstSample = (path: string) => (readJsonFile(join(DATA_ROOT, "nestful", path)) as unknown[])[0];

describe("NESTFUL samples", () => {
  it("SGD RentalCars sample: $var1.field$ references, var_result sink dropped", () => {
    // var1 GetCarsAvailable; var2 ReserveCar(pickup_location=$var1.pickup_location$, type=$var1.type$) → one edge [0, 1]
    const inst = parseNestfulSample(firstSample("data/non-executable/non-executable-sgd-data.json"), "sgd", 0);
    expect(inst.id).toBe("nestful:sgd-0");
    expect(inst.steps).toEqual(["nestful:RentalCars.GetCarsAvailable", "nestful:RentalCars.ReserveCar"]);
    expect(inst.edges).toEqual([[0, 1]]);
  });

  it("executable sample with a repeated tool and fan-in", () => {
    // var1, var2 SkyScrapperSearchAirport; var3 FlightSearch reads var1 and var2; var4 TripadvisorSearchLocation; var5 SearchHotels reads var4
    const inst = parseNestfulSample(firstSample("data/executable/executable-data.json"), "executable", 0);
    expect(inst.steps).toEqual([
      "nestful:SkyScrapperSearchAirport",
      "nestful:SkyScrapperSearchAirport",
      "nestful:SkyScrapperFlightSearch",
      "nestful:TripadvisorSearchLocation",
      "nestful:TripadvisorSearchHotels",
    ]);
    expect(inst.edges).toEqual([
      [0, 2],
      [1, 2],
      [3, 4],
    ]);
    expect(inst.relevant).toHaveLength(4);
  });

  it("embedded references, whole-output references and reused labels", () => {
    const calls = [
      { name: "A", arguments: { q: "x" }, label: "var1" },
      { name: "B", arguments: { amount: "5 * $var1.Exchange Rate$" }, label: "var1" },
      { name: "C", arguments: { all: "$var1$", list: ["$var2.id$"] }, label: "var2" },
    ];
    // B reads var1 = A → [0,1]; C reads var1, now B → [1,2]; $var2 has no earlier call → unresolved
    expect(nestfulCallEdges(calls)).toEqual({
      edges: [
        [0, 1],
        [1, 2],
      ],
      unresolved: ["var2"],
    });
  });

  it("var_result in another case is still the sink", () => {
    const inst = parseNestfulSample(
      {
        input: "q",
        output: [
          { name: "A", label: "var1", arguments: {} },
          { name: "Var_Result", arguments: { r: "$var1$" } },
        ],
      },
      "glaive",
      3,
    );
    expect(inst.steps).toEqual(["nestful:A"]);
    expect(inst.edges).toEqual([]);
  });
});

describe("NESTFUL spec spellings", () => {
  it("query_parameters with required flags (executable / Glaive)", () => {
    const t = nestfulSpecToTool(
      {
        name: "analyze_sentiment",
        description: "Analyze",
        query_parameters: { text: { type: "string", required: true, description: "The text" } },
        output_parameters: {},
      },
      "glaive",
    );
    expect(t).toEqual({
      id: "nestful:analyze_sentiment",
      name: "analyze_sentiment",
      description: "Analyze",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string", description: "The text" } },
        required: ["text"],
      },
      tags: ["glaive"],
      server: "glaive",
    });
  });

  it("arguments with allowed_values (SGD); server is the API prefix", () => {
    const t = nestfulSpecToTool(
      {
        name: "Buses.FindBus",
        description: "Find a bus",
        arguments: {
          origin: { description: "Origin", required: true, allowed_values: [] },
          fare_type: { description: "Fare", required: false, allowed_values: ["Economy", "Flexible"] },
        },
        output_parameters: {},
      },
      "sgd",
    );
    expect(t.server).toBe("Buses");
    expect(t.inputSchema).toEqual({
      type: "object",
      properties: {
        origin: { description: "Origin" },
        fare_type: { description: "Fare", enum: ["Economy", "Flexible"] },
      },
      required: ["origin"],
    });
  });

  it("parameters (Glaive) and path_parameters (executable), capitalised types", () => {
    const g = nestfulSpecToTool(
      { name: "g", description: "", parameters: { data: { type: "string", required: true } } },
      "glaive",
    );
    expect(g.inputSchema.required).toEqual(["data"]);
    const e = nestfulSpecToTool(
      { name: "e", description: "", method: "GET", path_parameters: { location: { type: "String", required: true } } },
      "executable",
    );
    expect(e.inputSchema).toEqual({
      type: "object",
      properties: { location: { type: "string" } },
      required: ["location"],
    });
  });

  it("output_parameters → outputSchema: types normalised, possible_values → enum, nesting kept; empty → none", () => {
    const t = nestfulSpecToTool(
      {
        name: "SkyScrapperSearchAirport",
        description: "",
        query_parameters: {},
        output_parameters: {
          skyId: { type: "string", description: "The unique identifier of the airport." },
          latitude: { type: "float" },
          group_size: { description: "Size of group", possible_values: ["1", "2"] },
          origin: { description: "Origin city", possible_values: [] },
          presentation: {
            type: "object",
            properties: { title: { type: "string", description: "The name of the airport." } },
          },
          junk: "not a field",
        },
      },
      "executable",
    );
    expect(t.outputSchema).toEqual({
      type: "object",
      properties: {
        skyId: { type: "string", description: "The unique identifier of the airport." },
        latitude: { type: "number" },
        group_size: { description: "Size of group", enum: ["1", "2"] },
        origin: { description: "Origin city" },
        presentation: {
          type: "object",
          properties: { title: { type: "string", description: "The name of the airport." } },
        },
      },
    });
    expect(nestfulSpecToTool({ name: "x", description: "", output_parameters: {} }, "glaive")).not.toHaveProperty(
      "outputSchema",
    );
    expect(nestfulSpecToTool({ name: "x", description: "" }, "glaive")).not.toHaveProperty("outputSchema");
  });

  it("humanizeName", () => {
    expect(humanizeName("get_news_headlines")).toBe("get news headlines");
    expect(humanizeName("RentalCars.GetCarsAvailable")).toBe("rental cars get cars available");
  });
});

describe("convertNestful", () => {
  it("first 20 samples of each subset", () => {
    const ds = convertNestful({ limit: 20 });
    expect(ds.splitSizes.train + ds.splitSizes.test).toBe(60);
    const tools = new Set(ds.catalog.tools.map((t) => t.id));
    for (const i of [...ds.trainInstances, ...ds.testInstances.test!])
      for (const s of i.steps) expect(tools.has(s)).toBe(true);
    expect(ds.evaluation.test!.filter((c) => c.kind === "retrieval")).toHaveLength(ds.splitSizes.test);
    expect(ds.traces.every((t) => t.id.startsWith("nestful:"))).toBe(true);
  });

  it("full data: 300 samples, 375 data-flow edges, 133 specs + 7 stubs", () => {
    const ds = convertNestful();
    const all = [...ds.trainInstances, ...ds.testInstances.test!];
    expect(all).toHaveLength(300);
    expect(all.reduce((s, i) => s + i.edges.length, 0)).toBe(375);
    expect(ds.catalog.tools).toHaveLength(140);
    expect(ds.catalog.tools.filter((t) => t.tags?.includes("stub"))).toHaveLength(7);
    expect(ds.splitSizes).toEqual({ train: 150, test: 150, groups: 300 });
    // Every spec declares output_parameters (none empty); stubs have no spec, hence no output schema.
    expect(ds.catalog.tools.filter((t) => t.outputSchema !== undefined)).toHaveLength(133);
    expect(ds.catalog.tools.filter((t) => t.tags?.includes("stub")).every((t) => t.outputSchema === undefined)).toBe(
      true,
    );
    expect(catalogSchema.safeParse(ds.catalog).success).toBe(true);
  });
});
