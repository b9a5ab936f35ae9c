/** The shape of a CLI command, and the options every command shares. */
import type { ParseArgsConfig } from "node:util";
import type { Toolgraph } from "../library/toolgraph.ts";
import type { Stdin } from "./input.ts";

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface CommandContext {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  json: boolean;
  /**
   * Opens the Toolgraph with the global options (database, home, project). `openWhenUnreachable`: a
   * PostgreSQL server that cannot be reached does not fail the open (servers start and report not ready).
   * `warmQueries`: the request's query texts, embedded while the database opens (EngineOptions.warmQueries).
   * `longRunning`: a server; the embedded database's code is tiered up (ConnectionOptions.pgliteTiered) and
   * requests may start background fits; any other command exits after its work, so it starts none
   * (EngineOptions.backgroundFits).
   */
  open(options?: {
    openWhenUnreachable?: boolean;
    warmQueries?: readonly string[];
    longRunning?: boolean;
  }): Promise<Toolgraph>;
  out(text: string): void;
  err(text: string): void;
  /** What `-` reads. */
  stdin: Stdin;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  examples: string[];
  options?: OptionSpec;
  /** Describes each option of this command for --help. */
  optionHelp?: Record<string, string>;
  /** Only reads: an embedded database that does not exist yet is an error, not created (a mistyped --home). Default false. */
  readOnly?: boolean;
  /**
   * Its operations run through a server's routes when one is named (--server, TOOLGRAPH_SERVER) or holds
   * the embedded data directory (src/cli/remote.ts). Default false: the command opens the database itself.
   */
  remote?: boolean;
  /** Options unknown to the CLI are passed to the command untouched (bench). Default false. */
  passThrough?: boolean;
  run(ctx: CommandContext): Promise<number>;
}

export const GLOBAL_OPTIONS: OptionSpec = {
  json: { type: "boolean", default: false },
  explain: { type: "boolean", default: false },
  project: { type: "string" },
  database: { type: "string" },
  home: { type: "string" },
  server: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
};

export const GLOBAL_HELP: Record<string, string> = {
  "--json": "print the result as JSON on stdout",
  "--project NAME": "project (tenant) to read and write (default: TOOLGRAPH_PROJECT or 'default')",
  "--database URL": "PostgreSQL server URL (default: DATABASE_URL; without one, the embedded database)",
  "--home DIR": "embedded database directory (default: TOOLGRAPH_HOME or ./.toolgraph)",
  "--server URL":
    "send the request to a running toolgraph serve (default: TOOLGRAPH_SERVER, else the serve that holds --home)",
  "--help": "show help for the command",
};

/** Exit codes, documented in README (defined with the one error mapping of every door). */
export { EXIT } from "../contract/exit-codes.ts";

export class UsageError extends Error {
  override name = "UsageError";
}
