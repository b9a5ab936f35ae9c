/** The CLI's help texts: the command list, one command's options and examples, and the option a typo meant. */
import { type Command, GLOBAL_HELP, GLOBAL_OPTIONS } from "./command.ts";
import { didYouMean } from "./did-you-mean.ts";

export function commandHelp(c: Command): string {
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

export function mainHelp(COMMANDS: readonly Command[]): string {
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

/** The command's options closest to a mistyped one. */
export function optionHint(typed: string, cmd: Command): string {
  const known = Object.entries({ ...GLOBAL_OPTIONS, ...(cmd.options ?? {}) }).flatMap(([long, spec]) => [
    `--${long}`,
    ...(spec.short ? [`-${spec.short}`] : []),
  ]);
  return didYouMean(typed, known);
}
