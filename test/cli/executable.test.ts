/**
 * The `toolgraph` executable itself, across the process boundary: it starts, prints its help, turns main's
 * result into the exit code, and reads standard input for `-`. Everything else about the commands runs in
 * process (test/cli/cli.test.ts): each spawn here pays node + tsx start-up, seconds on a busy machine, so
 * there are six. A reader that leaves early (`| head -3`) ends the output quietly (src/cli/closed-pipe.ts).
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, freshTarget, type Target, useEmbeddings } from "./harness.ts";

const BIN = join(resolve(import.meta.dirname, "../.."), "src/cli/toolgraph.mjs");

/** Runs the executable; resolves with its exit code and output (a non-zero exit is a result, not an error). */
function toolgraph(args: string[], input?: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { encoding: "utf8", env: { ...process.env, DATABASE_URL: "", TOOLGRAPH_EMBEDDINGS: "hash:32" } },
      (error, out, err) => done({ code: error ? Number(error.code ?? -1) : 0, out, err }),
    );
    child.stdin!.end(input ?? "");
  });
}

/**
 * Runs the executable with its standard output into a real pipe whose reader has already gone, as `| head -3`
 * leaves it once three lines are read: the command's first write fails with EPIPE.
 */
function toolgraphIntoClosedPipe(args: string[]): Promise<{ code: number | null; signal: string | null; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, DATABASE_URL: "", TOOLGRAPH_EMBEDDINGS: "hash:32" },
    });
    child.stdout.destroy(); // closes the read end before the child has started
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("close", (code, signal) => done({ code, signal, err }));
  });
}

/**
 * Runs the executable until it exits by itself, or kills it after `boundMs` (then `killed` is true);
 * `onErr` sees standard error as it grows, while the process still runs.
 */
function toolgraphWithin(
  args: string[],
  boundMs: number,
  onErr: (err: string) => void,
): Promise<{ code: number | null; killed: boolean; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, DATABASE_URL: "", TOOLGRAPH_EMBEDDINGS: "hash:32" },
    });
    let err = "";
    let killed = false;
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
      onErr(err);
    });
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, boundMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, killed, err });
    });
  });
}

let target: Target;
let restoreEmbeddings: () => void;
beforeAll(async () => {
  restoreEmbeddings = useEmbeddings("hash:32");
  target = await freshTarget();
});
afterAll(async () => {
  await target?.dispose();
  restoreEmbeddings();
});

describe("the toolgraph executable", () => {
  it("--help lists the commands and exits 0", async () => {
    const r = await toolgraph(["--help"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^toolgraph — a graph-analytics tool recommender/);
    expect(r.out).toMatch(/\n {2}search +/);
    expect(r.out).toContain("exit codes: 0 ok, 1 failure, 2 usage error");
  });

  it("an unknown command exits 2 with the suggestion on stderr", async () => {
    const r = await toolgraph(["serch", "open a pull request"]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain('unknown command "serch". Did you mean `search`?');
  });

  it("--help into a pipe whose reader has gone exits 0 quietly (no EPIPE stack trace)", async () => {
    const r = await toolgraphIntoClosedPipe(["--help"]);
    expect(r).toEqual({ code: 0, signal: null, err: "" });
  });

  it("plan into a pipe whose reader has gone (`| head -3`) finishes, exits 0 quietly and keeps the database usable", async () => {
    const { json } = cli(
      target,
      JSON.stringify({
        tools: [
          { id: "p.lint", description: "lint the code" },
          { id: "p.test", description: "run the tests" },
        ],
      }),
    );
    expect((await json("import", "catalog", "-")).tools.inserted).toBe(2);
    const r = await toolgraphIntoClosedPipe(["plan", "lint and test the code", ...target.argv]);
    expect(r).toEqual({ code: 0, signal: null, err: "" });
    expect((await cli(target).json("stats")).tools).toBe(2);
  });

  it("serve on a busy port exits non-zero by itself, says so, and releases the data-directory lock", async () => {
    const home = await freshTarget({ embedded: true });
    const busy: Server = createServer();
    try {
      expect((await cli(home).run("init")).code).toBe(0);
      await new Promise<void>((ok) => busy.listen(0, "127.0.0.1", ok));
      const port = String((busy.address() as { port: number }).port);
      const lock = join(home.options.home!, "toolgraph.lock");
      // Whether the lock is still held when the error is printed: it must be gone by then (the database is
      // closed before the error is reported), not only once some timer lets the process end.
      let lockWhenReported: boolean | undefined;
      // The bound only tells "exited by itself" from "hung": minutes, not a speed requirement.
      const r = await toolgraphWithin(["serve", "--port", port, ...home.argv], 180_000, (err) => {
        if (lockWhenReported === undefined && err.includes("is in use")) lockWhenReported = existsSync(lock);
      });
      expect(r.killed, r.err).toBe(false);
      expect(r.code).toBe(1);
      expect(r.err).toContain(
        `toolgraph serve: port ${port} on 127.0.0.1 is in use (another toolgraph serve?): stop it, or choose another --port`,
      );
      expect(lockWhenReported).toBe(false);
      expect(existsSync(lock)).toBe(false);
      expect((await cli(home).json("stats")).tools).toBe(0); // the next process opens the directory
    } finally {
      busy.close();
      await home.dispose();
    }
  }, 300_000);

  it("record - reads standard input and writes to the database (exit 0)", async () => {
    const { json } = cli(
      target,
      JSON.stringify({
        tools: [
          { id: "a.one", description: "first" },
          { id: "a.two", description: "second" },
        ],
      }),
    );
    expect((await json("import", "catalog", "-")).tools.inserted).toBe(2);
    const run = (id: string) =>
      JSON.stringify({
        id,
        startedAt: "2026-01-01T00:00:00Z",
        success: true,
        steps: [{ tool: "a.one" }, { tool: "a.two" }],
      });
    const r = await toolgraph(["record", "-", ...target.argv, "--json"], `${run("r1")}\n${run("r2")}\n`);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).inserted).toBe(2);
    expect((await cli(target).json("stats")).executions).toBe(2);
  });
});
