/**
 * One of N processes racing for one data-directory lock, round after round (test/store/lock-race.test.ts).
 * Each round starts at the same wall-clock instant in every process (sleep, then busy-wait to the instant).
 * A winner creates an exclusive marker file while it holds the lock (a second holder finds it and logs
 * OVERLAP), holds for a few ms, and on even rounds leaves a stale lock file behind (a dead owner's identity,
 * as a killed holder would), so the next round also exercises the stale takeover.
 * argv[2]: JSON { dir, go, rounds, period, holdMs, log, stale }; the first round starts at the instant written
 * in the file `go` (the test writes it once every racer has started).
 */
import { appendFileSync, closeSync, openSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolgraphError } from "../../../src/contract/errors.ts";
import { acquireDataDirLock } from "../../../src/store/data-dir-lock.ts";
import { startSignal } from "./start-signal.ts";

const cfg = JSON.parse(process.argv[2]!) as {
  dir: string;
  go: string;
  rounds: number;
  period: number;
  holdMs: number;
  log: string;
  stale: string;
};
const marker = join(cfg.dir, "inside");
const lockFile = join(cfg.dir, "toolgraph.lock");
const busy = (until: number) => {
  while (Date.now() < until) {
    /* spin */
  }
};

const t0 = await startSignal(cfg.go);
for (let r = 0; r < cfg.rounds; r++) {
  const at = t0 + r * cfg.period;
  const wait = at - Date.now() - 3;
  if (wait > 0) await new Promise((res) => setTimeout(res, wait));
  busy(at);
  try {
    const lock = await acquireDataDirLock(cfg.dir);
    try {
      closeSync(openSync(marker, "wx"));
    } catch {
      appendFileSync(cfg.log, `OVERLAP ${r} ${process.pid}\n`);
    }
    appendFileSync(cfg.log, `in ${r} ${process.pid}\n`);
    await new Promise((res) => setTimeout(res, cfg.holdMs)); // holding, with the event loop free to answer "who?"
    rmSync(marker, { force: true });
    if (r % 2 === 0) writeFileSync(lockFile, cfg.stale); // the holder "dies": its file stays, naming a dead process
    lock.release();
  } catch (e) {
    const code = e instanceof ToolgraphError ? e.code : String(e);
    const pid = /in use by process (\d+)/.exec((e as Error).message)?.[1] ?? "-";
    appendFileSync(
      cfg.log,
      `refused ${r} ${process.pid} ${code} ${pid}${pid === "-" ? ` ${JSON.stringify((e as Error).message)}` : ""}\n`,
    );
  }
}
