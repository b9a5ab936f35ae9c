import { afterAll, afterEach, describe, expect, it } from "vitest";
import { setSimdEnabled, simdAvailable, simdByDefault } from "../../algorithms/simd/row-dots.ts";
import { openToolgraph } from "../../src/library/toolgraph.ts";
import { SKIP_SERVER, serverBackend } from "../helpers/backends.ts";

describe("TOOLGRAPH_NO_SIMD", () => {
  const saved = process.env.TOOLGRAPH_NO_SIMD;
  afterEach(() => {
    if (saved === undefined) delete process.env.TOOLGRAPH_NO_SIMD;
    else process.env.TOOLGRAPH_NO_SIMD = saved;
    setSimdEnabled(true);
  });

  // The engine reads the variable whatever its database: the server's schema opens in milliseconds where a
  // PGlite open takes a minute on a busy machine.
  const backend = SKIP_SERVER ? undefined : serverBackend();
  const options = async () => (backend ? await backend.options() : { home: "memory://", database: "" });
  afterAll(async () => {
    await backend?.dispose();
  });

  it("an engine opened with TOOLGRAPH_NO_SIMD=1 switches the SIMD kernels off for the process; without it they stay as they were", async () => {
    delete process.env.TOOLGRAPH_NO_SIMD;
    const a = await openToolgraph({ ...(await options()), project: "simd", embeddings: "hash:64" });
    await a.close();
    expect(simdByDefault()).toBe(simdAvailable());
    process.env.TOOLGRAPH_NO_SIMD = "1";
    const b = await openToolgraph({ ...(await options()), project: "simd", embeddings: "hash:64" });
    await b.close();
    expect(simdByDefault()).toBe(false);
  });
});
