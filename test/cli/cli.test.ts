/**
 * Every CLI command in process through `main` (test/cli/harness.ts), with --json output parsed and checked.
 * The executable itself (bin start, --help, exit codes, standard input) is test/cli/executable.test.ts.
 *
 * Speed on a busy machine: each test has its own database — a schema on the PostgreSQL server when
 * one is available, else its own embedded data directory — so tests do not wait on each other and a slow or
 * timed-out test cannot leave a data-directory lock behind for the next. The embedded default (`--home`: init,
 * demo, stats) has a test of its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { cli, freshTarget, type Target, useEmbeddings } from "./harness.ts";

const targets: Target[] = [];
let restoreEmbeddings: () => void;

async function target(opts: { embedded?: boolean } = {}): Promise<Target> {
  const t = await freshTarget(opts);
  targets.push(t);
  return t;
}

beforeAll(() => {
  restoreEmbeddings = useEmbeddings("hash:256");
});
afterAll(async () => {
  for (const t of targets) await t.dispose();
  restoreEmbeddings();
});

describe("toolgraph CLI", () => {
  it("init, demo, stats on the embedded default (--home)", async () => {
    const { json } = cli(await target({ embedded: true }));
    expect((await json("init")).ok).toBe(true);
    const demo = await json("demo", "--traces", "300");
    expect(demo.stats.tools).toBe(41);
    expect(demo.imported.executions).toBe(300);
    expect(demo.sections.map((s: { title: string }) => s.title).length).toBe(6);
    const stats = await json("stats", "--project", "demo");
    expect(stats).toMatchObject({ project: "demo", backend: "pglite", tools: 41, capabilities: 10, executions: 300 });
  }, 180_000);

  it("search, next, capabilities, discover, dag, plan, alternatives, learn-weights, calibrate", async () => {
    const { json } = cli(await target());
    await json("demo", "--traces", "300");
    const p = ["--project", "demo"];
    const s = await json("search", "open a pull request", "--limit", "3", ...p);
    expect(s.results).toHaveLength(3);
    expect(s.results[0].gate.decision).toBeDefined();
    const n = await json("next", "--context", "git.status,git.diff", "--mode", "seed", ...p);
    expect(n.suggestions.length).toBeGreaterThan(0);
    expect(n.weights.cooc).toBe(0.6);
    const c = await json("capabilities", "rollback the broken deploy", ...p);
    expect(c.results[0].capability).toBe("rollback");
    const d = await json("discover", "--context", "calendar.find_free_slot,calendar.create_event", ...p);
    expect(d.results[0].capability).toBe("schedule-meeting");
    const dag = await json("dag", "db.backup", "db.migrate", "ci.deploy", ...p);
    expect(dag.layers.flat().sort()).toEqual(["ci.deploy", "db.backup", "db.migrate"]);
    const plan = await json("plan", "release the new version to production", "--max-tools", "3", ...p);
    expect(plan.tools.length).toBeLessThanOrEqual(3);
    const alt = await json("alternatives", "email.send", ...p);
    expect(alt.results.map((x: { tool: string }) => x.tool)).not.toContain("email.send");
    const lw = await json("learn-weights", ...p);
    expect(lw.examples).toBeGreaterThan(0);
    const cal = await json("calibrate", ...p);
    expect(cal.map((x: { kind: string }) => x.kind)).toEqual(["next-step", "search"]);
  });

  it("imports and records files; bad input exits 3 naming file, line and field, and writes nothing", async () => {
    const { json, run } = cli(await target());
    const dir = mkdtempSync(join(tmpdir(), "tg-cli-files-"));
    try {
      const cat = join(dir, "c.json");
      writeFileSync(cat, JSON.stringify(demoCatalog()));
      expect((await json("import", "catalog", cat, "--project", "p2")).tools.inserted).toBe(41);
      const traces = join(dir, "t.jsonl");
      writeFileSync(
        traces,
        `${JSON.stringify({ id: "r1", startedAt: "2026-01-01T00:00:00Z", success: true, steps: [{ tool: "git.status" }, { tool: "git.diff" }] })}\n`,
      );
      expect((await json("import", "traces", traces, "--project", "p2")).inserted).toBe(1);
      const one = join(dir, "one.json");
      writeFileSync(
        one,
        JSON.stringify({
          id: "r2",
          startedAt: "2026-01-01T00:01:00Z",
          success: true,
          steps: [{ tool: "git.diff" }, { tool: "git.commit" }],
        }),
      );
      expect((await json("record", one, "--project", "p2")).inserted).toBe(1);
      const bad = join(dir, "bad.jsonl");
      writeFileSync(
        bad,
        `${JSON.stringify({ id: "r3", startedAt: "2026-01-01T00:00:00Z", success: true, steps: [{ tool: "nope" }] })}\n`,
      );
      const r = await run("import", "traces", bad, "--project", "p2");
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/bad\.jsonl:1: steps\[0\]\.tool: unknown tool "nope"/);
      expect((await json("stats", "--project", "p2")).executions).toBe(2);
      const edges = join(dir, "e.jsonl");
      writeFileSync(edges, `${JSON.stringify({ from: "git.diff", to: "git.commit", type: "dependency" })}\n`);
      expect((await json("import", "edges", edges, "--project", "p2")).edges).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("usage errors exit 2 with the usage; --help shows examples", async () => {
    const { run } = cli(await target());
    expect((await run("search")).code).toBe(2);
    expect((await run("next", "--bogus")).code).toBe(2);
    expect((await run("frobnicate")).code).toBe(2);
    const h = await run("plan", "--help");
    expect(h.code).toBe(0);
    expect(h.out).toMatch(/examples:/);
  });
});
