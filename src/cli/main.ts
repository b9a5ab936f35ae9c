/**
 * CLI entry: `toolgraph COMMAND [options]`. Every command accepts --json, --project, --database,
 * --home and --help. Exit codes: 0 ok, 1 failure, 2 usage error, 3 invalid input (nothing written),
 * 4 database unavailable or locked by another process.
 */
import { parseArgs } from "node:util";
import { VERSION } from "../version.ts";
import { lineWriter } from "./closed-pipe.ts";
import { type CommandContext, EXIT, GLOBAL_OPTIONS, UsageError } from "./command.ts";
import { didYouMean } from "./did-you-mean.ts";
import { commandHelp, mainHelp, optionHint } from "./help.ts";
import { processStdin, type Stdin } from "./input.ts";
import { openFor } from "./open.ts";

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
    open: (options = {}) => openFor(cmd, values, options),
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
