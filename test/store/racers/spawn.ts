/**
 * Starting racers (lock-racer.ts, record-racer.ts) and firing them at one instant, for the race test and the
 * fault-injection bench: each racer prints "ready" once loaded; the start instant is written to the `go` file
 * once every racer is ready.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { bootId, formatOwner } from "../../../src/store/data-dir-lock.ts";

export interface Racer {
  child: ChildProcess;
  stdout: string;
  exit: Promise<number>;
}

export function startRacer(script: string, cfg: object): Racer {
  const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, script), JSON.stringify(cfg)], {
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

/** The lock file a killed holder leaves: the identity of a process that has exited. */
export async function deadOwner(): Promise<string> {
  const child = spawn(process.execPath, ["-e", "0"]);
  const pid = await new Promise<number>((res) => child.on("exit", () => res(child.pid!)));
  return formatOwner({ pid, bootId: bootId(), startTime: "1" });
}
