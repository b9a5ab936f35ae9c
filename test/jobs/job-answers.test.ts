/**
 * The jobs' answers are pinned: the wrappers around the scoring formulas were made
 * cheaper (explanations built for the kept candidates only, per-view state cached on the read model, …)
 * and must answer exactly as before. test/fixtures/job-answers.json holds the answers of the code before
 * that work (commit 1d1bade) on the demo project (41 tools, 400 traces, hashing embedder, fixed clock,
 * gate without the machine's resource signals); every field except timings and the answer id must match.
 *
 * Regenerate only for an intended change of behaviour: TOOLGRAPH_WRITE_JOB_ANSWERS=1 npx vitest run test/jobs/job-answers.test.ts
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { AdaptiveThresholdManager } from "../../src/gate/adaptive-threshold-manager.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const FIXTURE = join(import.meta.dirname, "..", "fixtures", "job-answers.json");
const WRITE = process.env.TOOLGRAPH_WRITE_JOB_ANSWERS === "1";

/** Drops what legitimately differs between runs: timings and the answer id. */
function stable(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(stable);
  if (x && typeof x === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) {
      if (k === "timings" || k === "recommendationId" || k === "ageMs") continue;
      out[k] = stable(v);
    }
    return out;
  }
  return x;
}

const REQUESTS: [string, (tg: Toolgraph) => Promise<unknown>][] = [
  ["search", (tg) => tg.search({ intent: "create a calendar event and invite attendees" })],
  [
    "search limit 3 with context",
    (tg) => tg.search({ intent: "push the branch to the remote", context: ["git.commit"], limit: 3 }),
  ],
  [
    "search passive",
    (tg) => tg.search({ intent: "push the branch to the remote", context: ["git.commit"], mode: "passive", limit: 5 }),
  ],
  [
    "search exclude + only + explain",
    (tg) =>
      tg.search({
        intent: "send a message to the team channel",
        exclude: ["slack.post_message"],
        only: ["git.push"],
        explain: true,
      }),
  ],
  ["search unknown words", (tg) => tg.search({ intent: "zzqx unknown words entirely" })],
  ["next", (tg) => tg.suggestNext({ context: ["git.commit"] })],
  ["next two steps, limit 3", (tg) => tg.suggestNext({ context: ["git.diff", "git.commit"], limit: 3 })],
  [
    "next with intent and explain",
    (tg) =>
      tg.suggestNext({ context: ["git.commit"], intent: "push the branch and open a pull request", explain: true }),
  ],
  ["next exclude, markov", (tg) => tg.suggestNext({ context: ["git.commit"], exclude: ["git.push"], mode: "markov" })],
  ["next empty context", (tg) => tg.suggestNext({ context: [] })],
  ["capabilities", (tg) => tg.matchCapabilities({ intent: "schedule a meeting with the team" })],
  ["discover", (tg) => tg.discoverCapabilities({ context: ["git.diff", "git.commit"] })],
  ["dag", (tg) => tg.buildDag({ tools: ["git.diff", "git.commit", "git.push", "ci.run_tests"] })],
  [
    "dag with intent",
    (tg) =>
      tg.buildDag({
        tools: ["slack.post_message", "ci.rollback", "monitor.get_alerts", "ci.deploy"],
        intent: "read the alerts, roll back the deploy, then post a message to the team",
      }),
  ],
  ["plan", (tg) => tg.plan({ intent: "commit the changes and push them" })],
];

describe("job answers are unchanged by the wrapper work", () => {
  let tg: Toolgraph;
  const answers: Record<string, unknown> = {};
  beforeAll(async () => {
    tg = await openToolgraph({
      home: "memory://",
      project: "pinned",
      embeddings: "hash:256",
      now: () => NOW,
      resultCacheSize: 0,
      recommendationLog: { enabled: false },
    });
    // The gate without the machine's CPU and memory signals, which move with the load of the test machine.
    (engineOf(tg).gatekeeper as { manager: AdaptiveThresholdManager }).manager = new AdaptiveThresholdManager({
      now: () => NOW,
      learner: engineOf(tg).gatekeeper.learner,
      resources: false,
    });
    await tg.importCatalog(demoCatalog());
    await tg.importTraces(demoTraces(400, 7, NOW));
    await tg.fitNextStepWeights();
    for (const [name, call] of REQUESTS) answers[name] = stable(await call(tg));
    if (WRITE) writeFileSync(FIXTURE, `${JSON.stringify(answers, null, 1)}\n`);
  }, 120_000);
  afterAll(async () => {
    await tg?.close();
  });

  it("has the stored answers", () => {
    expect(existsSync(FIXTURE)).toBe(true);
  });

  it("a memoised context detection equals a fresh one, per text and workflow", async () => {
    const gk = engineOf(tg).gatekeeper;
    const inputs = [
      { text: "deploy the hotfix to production now", workflow: undefined },
      {
        text: "",
        workflow: {
          steps: [
            { tool: "git.diff", success: true },
            { tool: "git.commit", success: false },
          ],
          replans: 1,
        },
      },
      {
        text: "",
        workflow: {
          steps: [
            { tool: "git.diff", success: true },
            { tool: "git.commit", success: true },
          ],
          replans: 1,
        },
      },
      { text: "", workflow: undefined },
    ];
    for (let round = 0; round < 2; round++) {
      for (const x of inputs) {
        const prepared = await gk.prepare({ project: "pinned", text: x.text, workflow: x.workflow });
        expect(prepared.detected).toEqual(gk.detectors.detect({ text: x.text, workflow: x.workflow }));
      }
    }
    // The failed step makes the second input's health differ from the third's: the key tells them apart.
    const failed = await gk.prepare({ project: "pinned", text: "", workflow: inputs[1]!.workflow });
    const ok = await gk.prepare({ project: "pinned", text: "", workflow: inputs[2]!.workflow });
    expect(failed.detected.consecutiveFailures).toBe(1);
    expect(ok.detected.consecutiveFailures).toBe(0);
  });

  for (const [name] of REQUESTS) {
    it(`${name}: same answer as before`, () => {
      const expected = JSON.parse(readFileSync(FIXTURE, "utf8")) as Record<string, unknown>;
      expect(expected[name]).toBeDefined();
      // JSON round trip on both sides: key order and undefined fields as the wire sees them.
      expect(JSON.stringify(answers[name])).toBe(JSON.stringify(expected[name]));
    });
  }
});
