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

const guarded = new WeakSet<NodeJS.WriteStream>();

function guard(stream: NodeJS.WriteStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on("error", (e: NodeJS.ErrnoException) => {
    // EPIPE destroys the stream: other writers (a progress bar, the server's log) then write into nothing.
    if (e.code !== "EPIPE") throw e;
  });
}
