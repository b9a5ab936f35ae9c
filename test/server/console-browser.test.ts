/**
 * The console driven in a real headless Chromium (the one the dev dependency @sparticuz/chromium ships, or
 * TOOLGRAPH_CHROMIUM; through playwright-core, test/helpers/browser.ts): load the demo project, open /ui with
 * the token, click a tool in the sigma.js graph, search, open a plan, open the dashboard, and check what the
 * page shows against what the library answers for the same questions. FAILS when no browser can be had.
 * TOOLGRAPH_SCREENSHOTS=1 writes a screenshot of each view to bench/results/.
 */
import { mkdirSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { liveMetrics } from "../../src/jobs/live-metrics.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { countRecommendations, joinedRecommendations } from "../../src/store/recommendations.ts";
import { findTestBrowser } from "../helpers/browser.ts";

const TOKEN = "console-test-token";
const NOW = Date.parse("2026-11-01T12:00:00Z");
const SHOTS = process.env.TOOLGRAPH_SCREENSHOTS === "1";
const SEARCH_INTENT = "open a pull request with my changes";
const PLAN_INTENT = "open a pull request with my changes";

let tg: Toolgraph;
let server: ServerHandle;
let browser: Browser;
let context: BrowserContext;
let page: Page;

async function shot(name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync("bench/results", { recursive: true });
  await page.screenshot({ path: `bench/results/console-${name}.png`, fullPage: false });
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

beforeAll(async () => {
  const found = await findTestBrowser();
  tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: "demo",
    embeddings: "hash:256",
    recommendationLog: { flushMs: 50 },
  });
  await tg.importCatalog(demoCatalog());
  await tg.importTraces(demoTraces(600, 42, NOW));
  server = await startServer({ api: tg, port: 0, token: TOKEN, log: () => {} });
  // Settle the read model first: answers compared with the page must come from the same weights and
  // analytics. Without stored next-step weights, "auto" answers with the seed's until a background fit
  // stores learned ones, so the page and a later call could disagree; fit them now (learn-weights).
  await tg.fitNextStepWeights();
  await server.server.readiness.start();
  for (let i = 0; i < 600 && !(await engineOf(tg).analytics("demo")).fresh; i++)
    await new Promise((r) => setTimeout(r, 100));
  expect((await engineOf(tg).analytics("demo")).fresh).toBe(true);
  browser = await chromium.launch({ executablePath: found.executablePath, args: found.args, headless: true });
  context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();
  // Demo import + a browser start: ~15 s on an idle machine, minutes on a shared one.
}, 300_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  await tg?.close();
});

describe("console in a real browser", () => {
  it("refuses /ui without the token, then logs in with ?token= and draws the graph with sigma.js", async () => {
    const denied = await fetch(`${server.url}/ui`);
    expect(denied.status).toBe(401);
    await page.goto(`${server.url}/ui?token=${TOKEN}&project=demo`);
    expect(new URL(page.url()).search).toBe("?project=demo");
    await page.waitForSelector("body[data-graph-ready=true]", { timeout: 30_000 });
    const s = await engineOf(tg).snapshot("demo");
    const caps = s.capabilities.length;
    await expect.poll(() => page.textContent("#graph-summary")).toContain(`${s.tools.length} tools`);
    expect(await page.textContent("#graph-summary")).toContain(`${caps} capabilities`);
    expect(await page.locator("#capabilities li").count()).toBe(caps);
    // sigma drew on WebGL canvases (not the no-WebGL fallback list).
    expect(await page.locator("#sigma canvas").count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => (window as any).__toolgraph.graph.order)).toBe(s.tools.length);
    await shot("graph");
  });

  it("clicking a tool in the graph shows its success rate, latency, neighbours and next-step suggestions", async () => {
    const tool = "git.push";
    const pos = await page.evaluate((id) => (window as any).__toolgraph.nodePosition(id), tool);
    const box = (await page.locator("#sigma").boundingBox())!;
    await page.mouse.click(box.x + pos.x, box.y + pos.y);
    await expect.poll(() => page.textContent("#tool-title"), { timeout: 15_000 }).toBe(tool);
    const s = await engineOf(tg).snapshot("demo");
    const i = s.index.get(tool)!;
    expect(await page.textContent('[data-field="success-rate"]')).toBe(pct(s.successes[i]! / s.executions[i]!));
    expect(await page.textContent('[data-field="executions"]')).toBe(String(s.executions[i]));
    const next = (await tg.suggestNext({ context: [tool], limit: 5 })) as { suggestions: { tool: string }[] };
    const shown = await page.locator("#next-steps tr td:first-child").allTextContents();
    expect(shown).toEqual(next.suggestions.map((x) => x.tool));
    await shot("tool");
  });

  it("search shows the ranked answer with its explanation, α, channels and gate decision", async () => {
    await page.click('button[data-view="search"]');
    await page.fill("#search-input", SEARCH_INTENT);
    await page.click("#search-form button");
    await page.waitForSelector("#search-table tr.hit", { timeout: 15_000 });
    const r = (await tg.search({ intent: SEARCH_INTENT, limit: 10, explain: true })) as {
      results: { tool: string; gate: { decision: string }; breakdown: { alpha: number } }[];
      abstained: boolean;
    };
    expect(await page.locator("#search-table .hit-tool").allTextContents()).toEqual(r.results.map((x) => x.tool));
    expect(await page.locator("#search-table tr.hit .decision").first().textContent()).toBe(
      r.results[0]!.gate.decision,
    );
    expect(await page.locator("#search-table tr.hit td:nth-child(5)").first().textContent()).toBe(
      r.results[0]!.breakdown.alpha.toFixed(2),
    );
    expect(await page.textContent("#search-gate")).toBe(r.abstained ? "abstained" : "answered");
    await shot("search");
  });

  it("a plan is drawn as a DAG with its layers and critical path", async () => {
    await page.click('button[data-view="plan"]');
    await page.fill("#plan-input", PLAN_INTENT);
    await page.click("#plan-form button");
    await page.waitForSelector("#plan-svg .dag-node", { timeout: 15_000 });
    const p = (await tg.plan({ intent: PLAN_INTENT, limit: 6 })) as {
      layers: string[][];
      timing: { criticalPath: string[] };
      gate: { decision: string };
    };
    expect(await page.textContent("#plan-layers")).toBe(String(p.layers.length));
    expect(await page.locator("#plan-svg .dag-node").count()).toBe(p.layers.flat().length);
    expect(await page.textContent("#critical-path")).toBe(p.timing.criticalPath.join(" → "));
    expect(await page.locator("#plan-svg .dag-node.critical").count()).toBe(p.timing.criticalPath.length);
    expect(await page.textContent("#plan-gate")).toBe(p.gate.decision);
    await shot("plan");
  });

  it("the dashboard counts the logged answers per job and the precision of accepted ones on live outcomes", async () => {
    // Live traffic through HTTP: two searches in sessions, then executions of those sessions (one ran the
    // answer's top tool and succeeded, one ran something else), and feedback naming a third answer.
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const post = async (path: string, body: object) =>
      (await fetch(`${server.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) })).json();
    const a = await post("/v1/search", { intent: "roll back the production deploy", limit: 3, session: "wf-ui-1" });
    const b = await post("/v1/search", { intent: "post a message to the team channel", limit: 3, session: "wf-ui-2" });
    const c = await post("/v1/search", { intent: "open a pull request", limit: 3 });
    const at = "2026-11-01T12:30:00Z";
    await post("/v1/executions", { id: "wf-ui-1", startedAt: at, success: true, steps: [{ tool: a.results[0].tool }] });
    await post("/v1/executions", {
      id: "wf-ui-2",
      startedAt: at,
      success: true,
      steps: [{ tool: "fs.list_directory" }],
    });
    await post("/v1/feedback", {
      intent: "open a pull request",
      decision: "accepted",
      success: true,
      recommendationId: c.recommendationId,
    });
    expect(b.recommendationId).toMatch(/^rec_/);
    await tg.recommendations.flush();
    const expected = liveMetrics(await joinedRecommendations(engineOf(tg).db, "demo")).perJob.find(
      (j) => j.job === "search",
    )!;
    // By hand: wf-ui-1 ran the top tool and succeeded (right), wf-ui-2 ran a tool the answer did not name
    // (wrong), the feedback says success (right): 3 judged, 2 right, all three accepted on the demo.
    expect(expected).toMatchObject({ judged: 3, acceptedJudged: 3, acceptedCorrect: 2 });

    await page.click('button[data-view="dashboard"]');
    await page.waitForSelector("#jobs-table", { timeout: 15_000 });
    const row = page.locator('#jobs-table tr[data-job="search"] td');
    expect(await row.nth(3).textContent()).toBe(String(expected.judged));
    expect(await row.nth(4).textContent()).toBe(
      expected.precisionAccepted === null ? "–" : pct(expected.precisionAccepted),
    );
    expect(await row.nth(2).textContent()).toBe(pct(expected.acceptance));
    await tg.recommendations.flush();
    const n = await countRecommendations(engineOf(tg).db, "demo");
    // The page flushed the log before counting; the answers the test asked directly are in it too.
    expect(Number(await page.textContent("#dash-answers"))).toBe(n.recommendations);
    const jobs = await page
      .locator("#jobs-table tr[data-job]")
      .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.job));
    expect(jobs).toEqual(["next", "plan", "search"]);
    expect(await page.locator("#tools-table tr").count()).toBeGreaterThan(10);
    await shot("dashboard");
  });
});
