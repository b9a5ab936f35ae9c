/** Where a command's input file comes from: a path, or `-` for standard input. */
import { existsSync, readFileSync } from "node:fs";
import { UsageError } from "./command.ts";

export type InputSource = { file: string } | { text: string };

/** Standard input as the CLI sees it (a test passes its own to run a command in process). */
export interface Stdin {
  isTTY?: boolean | undefined;
  read(): string;
}

/**
 * `-` reads all of standard input (refused when it is a terminal, which would wait forever); anything else
 * must be an existing file. `what` names the command in the error ("import catalog", "record").
 */
export function inputSource(arg: string | undefined, what: string, stdin: Stdin = processStdin()): InputSource {
  if (!arg) throw new UsageError(`${what}: FILE is missing (a path, or - for standard input)`);
  if (arg === "-") {
    if (stdin.isTTY)
      throw new UsageError(
        `${what}: - reads standard input, but it is a terminal: pipe the data in (… | toolgraph ${what} -)`,
      );
    return { text: stdin.read() };
  }
  if (!existsSync(arg)) throw new UsageError(`${what}: no such file: ${arg}`);
  return { file: arg };
}

/** The process's standard input, looked at only when `-` is used. */
export function processStdin(): Stdin {
  return {
    get isTTY() {
      return Boolean(process.stdin.isTTY);
    },
    read: () => readFileSync(0, "utf8"),
  };
}

/** The text of an input source. */
export function inputText(src: InputSource): string {
  return "text" in src ? src.text : readFileSync(src.file, "utf8");
}
