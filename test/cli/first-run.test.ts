/**
 * What a new user meets first: the version, did-you-mean, a non-PostgreSQL URL, a mistyped --home on a
 * read-only command, tables at the terminal's width, `-` for standard input, the demo's next commands.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { nextCommands } from "../../src/cli/commands/demo.ts";
import { closestNames, didYouMean } from "../../src/cli/did-you-mean.ts";
import { inputSource } from "../../src/cli/input.ts";
import { rateAndEta, table, wrap } from "../../src/cli/output.ts";
import { cli, freshTarget, useEmbeddings } from "./harness.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };

/** A command in process on no particular database (the arguments name one when it matters). */
const { run } = cli(undefined);

describe("version", () => {
  it("--version, -v and version print package.json's version", async () => {
    for (const flag of ["--version", "-v", "version"]) {
      const r = await run(flag);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`toolgraph ${PKG.version}\n`);
    }
  });
});

describe("did you mean", () => {
  it("suggests the closest command names only", () => {
    const names = ["search", "serve", "next", "dag", "plan", "bench", "demo"];
    expect(closestNames("serch", names)).toEqual(["search"]);
    expect(closestNames("nxt", names)).toEqual(["next"]);
    expect(closestNames("sear", names)).toEqual(["search"]); // a prefix
    expect(closestNames("zzzzzz", names)).toEqual([]);
    expect(didYouMean("dg", names)).toBe(" Did you mean `dag`?");
  });

  it("a mistyped command or option exits 2 with the suggestion", async () => {
    const cmd = await run("serch", "open a pull request");
    expect(cmd.code).toBe(2);
    expect(cmd.err).toContain('unknown command "serch". Did you mean `search`?');
    const opt = await run("search", "x", "--limt", "3");
    expect(opt.code).toBe(2);
    expect(opt.err).toContain("unknown option --limt. Did you mean `--limit`?");
  });
});

describe("database location", () => {
  it("a non-PostgreSQL URL is refused naming its scheme (exit 3), password redacted", async () => {
    const r = await run("stats", "--database", "mysql://root:hunter2@db.example/app");
    expect(r.code).toBe(3);
    expect(r.err).toContain('database URL "mysql://root:***@db.example/app" is not a PostgreSQL URL (scheme "mysql")');
    expect(r.err).not.toContain("hunter2");
  });

  it("a read-only command under a mistyped --home creates nothing and says so (exit 4)", async () => {
    const parent = mkdtempSync(join(tmpdir(), "tg-home-"));
    try {
      const home = join(parent, "typo");
      for (const argv of [["search", "x"], ["next", "--context", "a"], ["stats"]]) {
        const r = await run(...argv, "--home", home, "--database", "");
        expect(r.code, r.err).toBe(4);
        expect(r.err).toContain(`no embedded database at ${home} (a mistyped --home or TOOLGRAPH_HOME?)`);
      }
      expect(existsSync(home)).toBe(false);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe("tables", () => {
  it("fit the given width: prose columns wrap at spaces, identifiers stay whole", () => {
    const why = "semantic 0.71 (cosine 0.62, bm25 0.9), graph 0.4 with git.push";
    const t = table(["#", "tool", "why"], [[1, "github.create_pull_request", why]], { width: 50 });
    const lines = t.split("\n");
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(50);
    expect(lines[2]).toContain("github.create_pull_request");
    // The why column is 50 - (1 + 2 + 26 + 2) = 19 wide; its words come back in order.
    expect(
      lines
        .slice(2)
        .map((l) => l.slice(31).trim())
        .join(" "),
    ).toBe(why);
    expect(table(["a", "b"], [["x", "y"]], { width: 80 })).toBe("a  b\n-  -\nx  y");
  });

  it("wrap breaks at the last space within the width, else hard", () => {
    expect(wrap("aaa bbb ccc", 7)).toEqual(["aaa bbb", "ccc"]);
    expect(wrap("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
    expect(wrap("short", 10)).toEqual(["short"]);
  });
});

describe("progress", () => {
  it("shows the rate and the time left", () => {
    expect(rateAndEta(0, 100, 1000)).toBe("");
    expect(rateAndEta(50, 4076, 10_000)).toBe("5.0/s, ETA 13:25"); // (4076 - 50) / 5 = 805.2 s
    expect(rateAndEta(1000, 4076, 2_000)).toBe("500/s, ETA 0:06"); // 3076 / 500 = 6.15 s
    expect(rateAndEta(1, 10_000, 1_000)).toBe("1.0/s, ETA 2:46:39"); // 9,999 s
  });
});

describe("- reads standard input", () => {
  it("inputSource: - reads stdin, refuses a terminal, a missing file is a usage error", () => {
    expect(inputSource("-", "record", { isTTY: false, read: () => '{"id":"r"}' })).toEqual({ text: '{"id":"r"}' });
    expect(() => inputSource("-", "record", { isTTY: true, read: () => "" })).toThrow(
      /standard input, but it is a terminal/,
    );
    expect(() => inputSource("/nonexistent/x.json", "import catalog")).toThrow(
      "import catalog: no such file: /nonexistent/x.json",
    );
    expect(() => inputSource(undefined, "record")).toThrow("record: FILE is missing (a path, or - for standard input)");
  });

  it("import catalog - and record - read standard input (in process; the executable's own stdin: executable.test.ts)", async () => {
    const restore = useEmbeddings("hash:32");
    const target = await freshTarget();
    try {
      const catalog = {
        tools: [
          { id: "a.one", description: "first" },
          { id: "a.two", description: "second" },
        ],
      };
      expect((await cli(target, JSON.stringify(catalog)).json("import", "catalog", "-")).tools).toEqual({
        inserted: 2,
        updated: 0,
        unchanged: 0,
      });
      const run = (id: string) => ({
        id,
        startedAt: "2026-01-01T00:00:00Z",
        success: true,
        steps: [{ tool: "a.one" }, { tool: "a.two" }],
      });
      expect(
        (await cli(target, `${JSON.stringify(run("r1"))}\n${JSON.stringify(run("r2"))}\n`).json("record", "-"))
          .inserted,
      ).toBe(2);
      expect((await cli(target, JSON.stringify(run("r3"))).json("record", "-")).inserted).toBe(1);
      expect((await cli(target).json("stats")).executions).toBe(3);
    } finally {
      await target.dispose();
      restore();
    }
  });
});

describe("an interrupted catalog import", () => {
  it("search embeds the tool texts still missing before answering, and they stay stored", async () => {
    const restore = useEmbeddings("hash:32");
    const target = await freshTarget();
    try {
      const { openToolgraph } = await import("../../src/library/toolgraph.ts");
      const tg = await openToolgraph({ ...target.options, project: "p" });
      const tools = ["deploy the web app", "roll back a release", "read the logs"].map((d, i) => ({
        id: `t.${i}`,
        description: d,
      }));
      await tg.importCatalog({ tools }, { embed: false }); // as if the import stopped before embedding
      expect((await tg.stats()).embeddings).toBe(0);
      await tg.close();
      const { json } = cli(target);
      expect((await json("search", "roll back", "--project", "p")).results.length).toBeGreaterThan(0);
      expect((await json("stats", "--project", "p")).embeddings).toBe(3);
    } finally {
      await target.dispose();
      restore();
    }
  });
});

describe("demo", () => {
  it("prints the commands to run next on its project, with --home when one was given", () => {
    const lines = nextCommands("demo", "/tmp/x y");
    expect(lines[0]).toBe('next, on project "demo" (or export TOOLGRAPH_PROJECT=demo):');
    expect(lines).toContain('  toolgraph mcp --project demo --home "/tmp/x y"       # MCP over stdio');
    expect(nextCommands("demo", undefined)[2]).toBe("  toolgraph serve --project demo     # HTTP API");
  });
});
