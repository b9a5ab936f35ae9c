/**
 * How a command opens its Toolgraph: through a running server (`--server`, or the `serve` that holds the data
 * directory: remote.ts), else the library on the database, imported on first open so `--help`, `--version` and
 * usage errors start fast. A one-shot command starts the embedded database (its own thread) while the library's
 * modules load; a read-only command refuses a data directory that does not exist.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Toolgraph } from "../library/toolgraph.ts";
import { type Command, type CommandContext, UsageError } from "./command.ts";

export async function openFor(
  cmd: Command,
  values: CommandContext["values"],
  options: Parameters<CommandContext["open"]>[0] = {},
): Promise<Toolgraph> {
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
