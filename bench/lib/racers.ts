/**
 * Starting racers (test/store/racers/lock-racer.ts, record-racer.ts: each a script run as its own process) and
 * firing them at one instant, for the race tests and bench/lock-race.ts: each racer prints "ready" once loaded;
 * the start instant is written to the `go` file once every racer is ready.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

export interface Racer {
  child: ChildProcess;
  stdout: string;
  exit: Promise<number>;
}

/** Runs the racer `script` (a path) through tsx with its configuration as argv[2], on a hashing embedder. */
export function startRacer(script: string, cfg: object): Racer {
  const child = spawn(process.execPath, ["--import", "tsx", script, JSON.stringify(cfg)], {
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, DATABASE_URL: "", TOOLGRAPH_EMBEDDINGS: "hash" },
  });
  const r: Racer = { child, stdout: "", exit: new Promise((res) => child.on("exit", (code) => res(code ?? -1))) };
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (r.stdout += d));
  return r;
}

/** Waits until every racer printed "ready", then fires the start `leadMs` later. */
export async function fire(racers: Racer[], go: string, leadMs = 300): Promise<void> {
  while (!racers.every((r) => r.stdout.includes("ready\n"))) await new Promise((res) => setTimeout(res, 20));
  writeFileSync(go, String(Date.now() + leadMs));
}

/**
 * The lock file a killed holder leaves: the identity of a process that has exited, in the data-directory lock's
 * file format (its pid, the boot id, its start time: one per line; test/store/dead-owner.test.ts checks it
 * against the lock's own reader).
 */
export async function deadOwner(): Promise<string> {
  const child = spawn(process.execPath, ["-e", "0"]);
  const pid = await new Promise<number>((res) => child.on("exit", () => res(child.pid!)));
  let boot = "";
  try {
    boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    /* no boot id on this system: the lock then judges by the pid alone */
  }
  return `${[String(pid), boot, "1"].join("\n")}\n`;
}
