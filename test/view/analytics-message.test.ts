/** The analytics worker's message: a job packed into typed arrays unpacks to the same job (analytics-message.ts). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCsr } from "../../algorithms/graph/csr.ts";
import type { Analytics } from "../../src/view/analytics.ts";
import { analyticsBuffers, packJob, unpackJob } from "../../src/view/analytics-message.ts";

describe("analytics worker messages", () => {
  it("a packed job unpacks to the same job, whatever its memberships and dependencies", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.array(fc.array(fc.nat(29), { maxLength: 8 }), { maxLength: 12 }),
        fc.array(fc.record({ from: fc.nat(11), to: fc.nat(11), weight: fc.double({ min: 0, max: 5, noNaN: true }) }), {
          maxLength: 10,
        }),
        fc.boolean(),
        (nTools, memberships, capabilityDeps, withGraph) => {
          const csr = buildCsr(nTools, []);
          const ms = memberships.map((m) => m.filter((t) => t < nTools));
          const job = {
            version: 7,
            patchCount: 2,
            csr,
            input: { nTools, memberships: ms, capabilityDeps, ...(withGraph ? { toolGraph: csr } : {}) },
          };
          const { packed, transfer } = packJob(job);
          // The message as the worker receives it: cloned, the new arrays moved.
          const received = structuredClone(packed, { transfer });
          expect(transfer.every((b) => b.byteLength === 0)).toBe(true);
          expect(unpackJob(received)).toEqual(job);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("the answer's arrays are transferred, each buffer once", () => {
    const shared = new Float64Array(4);
    const a = {
      pagerankRaw: shared,
      pagerank: new Float64Array(2),
      community: new Int32Array(2),
      toolCluster: new Int32Array(2),
      capabilityCluster: new Int32Array(0),
      hyperTools: shared.subarray(0, 2),
      hyperCapabilities: shared.subarray(2),
    } as unknown as Analytics;
    const buffers = analyticsBuffers(a);
    expect(buffers).toHaveLength(5);
    const back = structuredClone(a, { transfer: buffers });
    expect(back.hyperCapabilities.length).toBe(2);
    expect(shared.length).toBe(0); // detached here: moved, not copied
  });
});
