/**
 * CLI entry: `toolgraph COMMAND [options]`. Every command accepts --json, --project, --database,
 * --home and --help. Exit codes: 0 ok, 1 failure, 2 usage error, 3 invalid input (nothing written),
 * 4 database unavailable or locked by another process.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Toolgraph } from "../library/toolgraph.ts";
import { VERSION } from "../version.ts";
import { lineWriter } from "./closed-pipe.ts";
import { type Command, type CommandContext, EXIT, GLOBAL_HELP, GLOBAL_OPTIONS, UsageError } from "./command.ts";
import { didYouMean } from "./did-you-mean.ts";
import { processStdin, type Stdin } from "./input.ts";

function commandHelp(c: Command): string {
  const opts = { ...(c.optionHelp ?? {}), ...GLOBAL_HELP };
  const w = Math.max(...Object.keys(opts).map((k) => k.length));
  return [
    `${c.summary}`,
    "",
    `usage: ${c.usage}`,
    "",
    "options:",
    ...Object.entries(opts).map(([k, v]) => `  ${k.padEnd(w)}  ${v}`),
    "",
    "examples:",
    ...c.examples.map((e) => `  ${e}`),
  ].join("\n");
}

function mainHelp(COMMANDS: readonly Command[]): string {
  const w = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "toolgraph — a graph-analytics tool recommender",
    "",
    "usage: toolgraph COMMAND [options]     (toolgraph COMMAND --help for details)",
    "",
    "commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
    "",
    "exit codes: 0 ok, 1 failure, 2 usage error, 3 invalid input (nothing written), 4 database unavailable or locked",
  ].join("\n");
}

export interface MainIo {
  out?: (s: string) => void;
  err?: (s: string) => void;
  /** What `-` reads. Default the process's standard input. */
  stdin?: Stdin;
}

export async function main(argv: string[], io: MainIo = {}): Promise<number> {
  const out = io.out ?? lineWriter(process.stdout);
  const err = io.err ?? lineWriter(process.stderr);
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v" || name === "version") {
    out(`toolgraph ${VERSION}`);
    return EXIT.ok;
  }
  // The commands' descriptions only: each command imports what it runs (the library, a server, the model)
  // when it runs, so --help, --version and usage errors load none of it (docs/decisions/fresh-machine.md).
  const { COMMANDS } = await import("./commands/index.ts");
  if (!name || name === "--help" || name === "-h" || name === "help") {
    out(mainHelp(COMMANDS));
    return name ? EXIT.ok : EXIT.usage;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    const hint = didYouMean(
      name,
      COMMANDS.map((c) => c.name),
    );
    err(
      `toolgraph: unknown command ${JSON.stringify(name)}.${hint}\n\n${hint ? "toolgraph --help lists the commands" : mainHelp(COMMANDS)}`,
    );
    return EXIT.usage;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...(cmd.options ?? {}) },
      allowPositionals: true,
      strict: !cmd.passThrough,
    });
  } catch (e) {
    const unknown = /Unknown option '(--?[^']+)'/.exec((e as Error).message)?.[1];
    const message = unknown ? `unknown option ${unknown}.${optionHint(unknown, cmd)}` : (e as Error).message;
    err(`toolgraph ${cmd.name}: ${message}\n\nusage: ${cmd.usage}`);
    return EXIT.usage;
  }
  const values = parsed.values as CommandContext["values"];
  // A pass-through command with a sub-command (`bench accuracy --help`) lets the program print its own options.
  if (values.help && !(cmd.passThrough && parsed.positionals.length > 0)) {
    out(commandHelp(cmd));
    return EXIT.ok;
  }
  const json = Boolean(values.json);
  const ctx: CommandContext = {
    values,
    positionals: parsed.positionals,
    json,
    out,
    err,
    stdin: io.stdin ?? processStdin(),
    // The library is imported on first open, so `--help`, `--version` and usage errors start fast.
    open: async (options = {}): Promise<Toolgraph> => {
      const project = (values.project as string | undefined) || process.env.TOOLGRAPH_PROJECT || "default";
      // Through a running server (`--server`, or the `serve` that holds the data directory): src/cli/remote.ts.
      if (cmd.remote) {
        const remote = await import("./remote.ts");
        const target = await remote.remoteTarget(values, project);
        if (target) return remote.remoteToolgraph(target);
      } else if (values.server)
        throw new UsageError(`--server: ${cmd.name} does not run through a server; it opens the database itself`);
      if (cmd.readOnly)
        await assertEmbeddedDatabaseExists(values.database as string | undefined, values.home as string | undefined);
      // A one-shot command starts the embedded database (its own thread) while the library's modules load.
      const started = options.longRunning ? undefined : (await startEmbeddedEarly(values))?.started;
      try {
        return await (await import("../library/toolgraph.ts")).openToolgraph({
          database: values.database as string | undefined,
          home: values.home as string | undefined,
          project,
          openWhenUnreachable: options.openWhenUnreachable,
          warmQueries: options.warmQueries,
          pgliteTiered: options.longRunning,
          backgroundFits: options.longRunning ?? false,
          started,
        });
      } catch (err) {
        // A start the open did not take (it failed before the database): stop it and release the lock.
        await started?.then(
          (s) => s.close(),
          () => {},
        );
        throw err;
      }
    },
  };
  try {
    return await cmd.run(ctx);
  } catch (e) {
    let message = (e as Error).message ?? String(e);
    let code: number = EXIT.usage;
    let errorCode = "usage";
    if (!(e instanceof UsageError)) {
      // The one mapping every door shares (HTTP status, exit code, MCP isError); loaded only on failure.
      const o = (await import("../contract/error-mapping.ts")).errorOutcome(e, "cli");
      code = o.exitCode;
      errorCode = o.internal ? "error" : o.code;
      // The error's advice as the CLI spells it (--auto-register, --project), in its own layout.
      const { ToolgraphError } = await import("../contract/errors.ts");
      if (e instanceof ToolgraphError) message = e.messageFor("cli");
    }
    if (json) out(JSON.stringify({ error: { code: errorCode, message } }));
    err(`toolgraph ${cmd.name}: ${message}`);
    return code;
  }
}

/**
 * The embedded data directory's database, started now (store/pglite-early.ts), when the options name one
 * (not PostgreSQL, not memory://); undefined otherwise. Its failure is the open's: handled there.
 */
async function startEmbeddedEarly(values: CommandContext["values"]) {
  const { resolveDatabaseUrl, resolveHome } = await import("../store/locations.ts");
  if (resolveDatabaseUrl(values.database as string | undefined)) return undefined;
  const home = resolveHome(values.home as string | undefined);
  if (home === "memory://") return undefined;
  const { startEmbedded } = await import("../store/pglite-early.ts");
  const started = startEmbedded(home);
  started.catch(() => {}); // awaited by the open, which reports it
  return { started };
}

/** A read-only command on an embedded data directory that does not exist: refuse instead of creating one. */
async function assertEmbeddedDatabaseExists(database: string | undefined, home: string | undefined): Promise<void> {
  const { resolveDatabaseUrl, resolveHome } = await import("../store/locations.ts");
  if (resolveDatabaseUrl(database)) return;
  const dir = resolveHome(home);
  if (dir === "memory://" || existsSync(join(dir, "PG_VERSION"))) return;
  const { ToolgraphError } = await import("../contract/errors.ts");
  throw new ToolgraphError(
    "database-unreachable",
    `no embedded database at ${dir} (a mistyped --home or TOOLGRAPH_HOME?). Create one with \`toolgraph init --home ${dir}\` or \`toolgraph demo --home ${dir}\`, or import a catalog there.`,
    { home: dir },
  );
}

/** The command's options closest to a mistyped one. */
function optionHint(typed: string, cmd: Command): string {
  const known = Object.entries({ ...GLOBAL_OPTIONS, ...(cmd.options ?? {}) }).flatMap(([long, spec]) => [
    `--${long}`,
    ...(spec.short ? [`-${spec.short}`] : []),
  ]);
  return didYouMean(typed, known);
}
