/**
 * Output to a reader that may leave early. `toolgraph plan … | head -3` closes the pipe after three lines;
 * the next write then fails with EPIPE, which Node reports as an unhandled 'error' event: a stack trace and
 * exit 1. Here a closed pipe ends the output, not the command: later lines are dropped, the command finishes
 * (its database closed, its lock released) and exits with its own code, as quietly as `cat` when its reader
 * goes (docs/decisions/fresh-machine.md).
 */

/** Guards `stream` against a closed pipe (once per stream) and returns a line writer that stops when it closes. */
export function lineWriter(stream: NodeJS.WriteStream): (line: string) => void {
  guard(stream);
  return (line) => {
    if (!stream.destroyed) stream.write(`${line}\n`);
  };
}

/** EPIPE destroys the stream: other writers (a progress bar, the server's log) then write into nothing. */
function onPipeError(e: NodeJS.ErrnoException): void {
  if (e.code !== "EPIPE") throw e;
}

/** Adds the handler once per stream (the stream's own listener list says whether it is there: no module state). */
function guard(stream: NodeJS.WriteStream): void {
  if (!stream.listeners("error").includes(onPipeError)) stream.on("error", onPipeError);
}
