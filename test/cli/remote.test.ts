/**
 * The CLI through a running server (src/cli/remote.ts), across real processes: the same command prints the
 * same standard output whether it opens the embedded database itself or `toolgraph serve` holds the data
 * directory; writes (record, import) go through too; the server's file (address + local token, mode 0600) is
 * gone after a clean exit, and a file left by a dead process is ignored.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REMOTE_OPERATIONS } from "../../src/cli/remote-routes.ts";
import { readServerFile, SERVER_FILE } from "../../src/cli/server-file.ts";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { ROUTES } from "../../src/server/routes.ts";
import { cli, freshTarget, type Target, useEmbeddings } from "./harness.ts";

const BIN = join(resolve(import.meta.dirname, "../.."), "src/cli/toolgraph.mjs");
const ENV = { DATABASE_URL: "", TOOLGRAPH_EMBEDDINGS: "hash:32", TOOLGRAPH_SERVER: "", TOOLGRAPH_TOKEN: "" };

function toolgraph(
  args: string[],
  opts: { input?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { encoding: "utf8", env: { ...process.env, ...ENV, ...opts.env } },
      (error, out, err) => done({ code: error ? Number(error.code ?? -1) : 0, out, err }),
    );
    child.stdin!.end(opts.input ?? "");
  });
}

/** Starts `serve --port 0` on the home; resolves once its server file names it. */
async function serve(
  home: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--home", home, "--database", "", "--json"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...ENV, ...env },
  });
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
  const url = await new Promise<string>((ok, fail) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /"listening":"([^"]+)"/.exec(out);
      if (m) ok(m[1]!);
    });
    void exited.then((code) => fail(new Error(`serve exited ${code}: ${err}`)));
  });
  // Warm (model, index, analytics): until then a server answers from what it has, as documented for /ready.
  while ((await fetch(new URL("/ready", url))).status !== 200) await new Promise((r) => setTimeout(r, 200));
  return { child, url, exited };
}

const PROJECT = ["--project", "demo"];
/** Read commands whose table output is the same in every process (no ids, no clock). */
const READS: string[][] = [
  ["search", "roll back the last deploy", "--limit", "4"],
  ["next", "--context", "git.status,git.diff", "--mode", "seed"],
  ["dag", "db.backup", "db.migrate", "ci.deploy"],
  ["capabilities", "roll back the broken deploy"],
  ["stats"],
];

let target: Target;
let home: string;
let restoreEmbeddings: () => void;
beforeAll(async () => {
  restoreEmbeddings = useEmbeddings("hash:32");
  target = await freshTarget({ embedded: true });
  home = target.options.home!;
  const { json } = cli(target, JSON.stringify(demoCatalog()));
  await json("import", "catalog", "-", ...PROJECT);
  const traces = demoTraces(200, 7, Date.parse("2026-11-01T12:00:00Z"));
  await cli(target, traces.map((t) => JSON.stringify(t)).join("\n")).json("import", "traces", "-", ...PROJECT);
  // The weights' first fit, stored now: otherwise a search starts it in the background, and a server (which
  // lives long enough to finish it) would answer with fitted weights while a short local run has the defaults.
  await cli(target).json("learn-weights", ...PROJECT);
}, 300_000);
afterAll(async () => {
  await target?.dispose();
  restoreEmbeddings();
});

describe("the CLI through a running server", () => {
  it("every route the client calls is the server's route for that operation", () => {
    for (const [op, spelling] of Object.entries(REMOTE_OPERATIONS)) {
      const route = ROUTES.find((r) => r.operationId === spelling.operationId);
      expect(route, op).toBeDefined();
      expect(
        { method: route!.method, path: route!.path, body: route!.body, flags: (route!.flags ?? []).map((f) => f.name) },
        op,
      ).toEqual({
        method: spelling.method,
        path: spelling.path,
        body: spelling.body,
        flags: [...(spelling.flags ?? [])],
      });
    }
  });

  it("prints what the local run prints, writes through the server, and leaves no file after a clean exit", async () => {
    const local: string[] = [];
    for (const args of READS) {
      const r = await toolgraph([...args, ...PROJECT, "--home", home]);
      expect(r.code, r.err).toBe(0);
      local.push(r.out);
    }
    // A token on the server: the CLI still gets in, with the local token from the server's file.
    const server = await serve(home, { TOOLGRAPH_TOKEN: "configured-secret" });
    try {
      const file = join(home, SERVER_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const written = readServerFile(home)!;
      expect(written.url).toBe(server.url);
      expect(written.owner.pid).toBe(server.child.pid);
      expect(written.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await fetch(new URL("/v1/stats", server.url))).status).toBe(401);

      for (const [i, args] of READS.entries()) {
        const r = await toolgraph([...args, ...PROJECT, "--home", home]);
        expect(r.code, r.err).toBe(0);
        expect(r.err).not.toContain("in use by process");
        expect(r.out, args.join(" ")).toBe(local[i]);
      }

      // Writes: one execution from standard input, then a catalog and edges from files.
      const run = {
        id: "through-server-1",
        startedAt: "2026-11-02T00:00:00Z",
        success: true,
        steps: [{ tool: "git.status" }, { tool: "brand.new_tool" }],
      };
      const refused = await toolgraph(["record", "-", ...PROJECT, "--home", home], { input: JSON.stringify(run) });
      expect(refused.code).toBe(3);
      expect(refused.err).toContain("pass --auto-register");
      expect(refused.err).not.toContain("autoRegister=true");
      const rec = await toolgraph(["record", "-", "--auto-register", ...PROJECT, "--home", home], {
        input: JSON.stringify(run),
      });
      expect(rec.code, rec.err).toBe(0);
      expect(rec.out).toMatch(/^1 execution\(s\) recorded, 0 already present; graph version \d+\n$/);
      const cat = join(home, "..", `${home.split("/").pop()}-extra.json`);
      writeFileSync(
        cat,
        JSON.stringify({ tools: [{ id: "extra.tool", description: "An extra tool imported through the server" }] }),
      );
      const imp = await toolgraph(["import", "catalog", cat, ...PROJECT, "--home", home, "--json"]);
      expect(imp.code, imp.err).toBe(0);
      expect(JSON.parse(imp.out).tools.inserted).toBe(1);
      const edges = await toolgraph(["import", "edges", "-", "--skip-invalid", ...PROJECT, "--home", home], {
        input: `${JSON.stringify({ from: "db.backup", to: "db.migrate", type: "dependency" })}\n{"from": 1}\n`,
      });
      expect(edges.code, edges.err).toBe(0);
      expect(edges.out).toBe("1 declared edges imported\n");
      expect(edges.err).toMatch(/^skipped edges:2: /);

      // --server names the server explicitly; the configured token comes from TOOLGRAPH_TOKEN. 41 demo tools,
      // brand.new_tool (auto-registered) and extra.tool.
      const named = await toolgraph(["stats", "--json", ...PROJECT, "--server", server.url, "--home", "/nonexistent"], {
        env: { TOOLGRAPH_TOKEN: "configured-secret" },
      });
      expect(named.code, named.err).toBe(0);
      expect(JSON.parse(named.out)).toMatchObject({ project: "demo", tools: 43, executions: 201 });
      const wrong = await toolgraph(["stats", ...PROJECT, "--server", server.url], {
        env: { TOOLGRAPH_TOKEN: "wrong" },
      });
      expect(wrong.code).toBe(1);
      expect(wrong.err).toContain("refused the request (401)");
    } finally {
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    }
    expect(existsSync(join(home, SERVER_FILE))).toBe(false);
    // The server wrote through the same database the local run reads.
    const after = await toolgraph(["stats", "--json", ...PROJECT, "--home", home]);
    expect(after.code, after.err).toBe(0);
    expect(JSON.parse(after.out)).toMatchObject({ tools: 43, executions: 201 });
  }, 600_000);

  it("ignores a server file left by a process that is gone", () => {
    const dir = target.options.home!;
    const file = join(dir, SERVER_FILE);
    writeFileSync(file, JSON.stringify({ url: "http://127.0.0.1:1", token: "t", owner: { pid: 2 ** 22 + 1 } }), {
      mode: 0o600,
    });
    expect(readServerFile(dir)).toBeUndefined();
    writeFileSync(file, JSON.stringify({ url: "http://127.0.0.1:1", token: "t", owner: { pid: process.pid } }), {
      mode: 0o600,
    });
    expect(readServerFile(dir)?.url).toBe("http://127.0.0.1:1");
    writeFileSync(file, "not json");
    expect(readServerFile(dir)).toBeUndefined();
    expect(readFileSync(file, "utf8")).toBe("not json");
  });
});
