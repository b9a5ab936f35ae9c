/**
 * Running CLI commands in process through `main` (the suite must pass on a busy 2-core machine).
 *
 * Each test takes its own database: a schema on the PostgreSQL server (`--database`; a pool opens in
 * milliseconds) when one is available, else its own embedded data directory (`--home`; every command then pays
 * a PGlite open, seconds under load). Nothing is shared between tests, so a slow or timed-out test cannot leave a
 * data-directory lock behind for the next. Only tests whose point is the embedded store ask for `embedded`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { ConnectionOptions } from "../../src/store/connection.ts";
import { SKIP_SERVER, serverBackend } from "../helpers/backends.ts";

export interface Target {
  /** The CLI's global options naming this database. */
  argv: string[];
  /** The same database for `openToolgraph`. */
  options: ConnectionOptions;
  /** Drops the schema or removes the directory. */
  dispose(): Promise<void>;
}

/** A fresh database for one test; `embedded` forces an embedded data directory. */
export async function freshTarget(opts: { embedded?: boolean } = {}): Promise<Target> {
  if (!opts.embedded && !SKIP_SERVER) {
    const b = serverBackend();
    const options = await b.options();
    return { argv: ["--database", options.database!], options, dispose: () => b.dispose() };
  }
  const home = mkdtempSync(join(tmpdir(), "tg-cli-"));
  return {
    argv: ["--home", home, "--database", ""],
    options: { home, database: "" },
    dispose: async () => rmSync(home, { recursive: true, force: true }),
  };
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** `run(...argv)` runs one command on the target in process; `json(...argv)` adds --json, expects exit 0 and parses stdout. */
export function cli(target: { argv: string[] } | undefined, stdin?: string) {
  const run = async (...argv: string[]): Promise<CliResult> => {
    let out = "";
    let err = "";
    const code = await main([...argv, ...(target?.argv ?? [])], {
      out: (s) => (out += `${s}\n`),
      err: (s) => (err += `${s}\n`),
      ...(stdin === undefined ? {} : { stdin: { isTTY: false, read: () => stdin } }),
    });
    return { code, out, err };
  };
  const json = async (...argv: string[]): Promise<any> => {
    const r = await run(...argv, "--json");
    expect(r.code, r.err).toBe(0);
    return JSON.parse(r.out);
  };
  return { run, json };
}

/** Sets TOOLGRAPH_EMBEDDINGS for a file's tests; returns the function that restores it. */
export function useEmbeddings(spec: string): () => void {
  const prev = process.env.TOOLGRAPH_EMBEDDINGS;
  process.env.TOOLGRAPH_EMBEDDINGS = spec;
  return () => {
    if (prev === undefined) delete process.env.TOOLGRAPH_EMBEDDINGS;
    else process.env.TOOLGRAPH_EMBEDDINGS = prev;
  };
}
