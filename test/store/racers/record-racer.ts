/**
 * One `toolgraph record FILE --home H` process of a simultaneous start (test/store/lock-race.test.ts): the
 * CLI is imported first, then the process busy-waits to the shared instant and runs the command, printing
 * one JSON line { code, out, err } (the command's own exit code is the process's).
 * argv[2]: JSON { go, argv }: the instant is written in the file `go` once every racer has started.
 */
import { startSignal } from "./start-signal.ts";

const cfg = JSON.parse(process.argv[2]!) as { go: string; argv: string[] };
const { main } = await import("../../../src/cli/main.ts");
const at = await startSignal(cfg.go);
const wait = at - Date.now() - 3;
if (wait > 0) await new Promise((res) => setTimeout(res, wait));
while (Date.now() < at) {
  /* spin to the shared instant */
}
let out = "";
let err = "";
const code = await main(cfg.argv, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`) });
process.stdout.write(`${JSON.stringify({ code, out, err })}\n`);
process.exitCode = code;
