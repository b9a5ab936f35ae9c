/**
 * The concurrent-start race on one embedded data directory, for bench/fault-injection.ts (scenario "race"):
 * - lock: `processes` processes × `rounds` rounds take the data-directory lock at the same instant (a stale
 *   lock file before every other round); counted: rounds where two held it at once (must be 0), refusals that
 *   named the holder;
 * - record: `processes` `toolgraph record FILE --home H` processes started at one instant, `recordRounds`
 *   times (over a stale lock file every other round); counted: exit codes, acknowledged executions, stored ones
 *   (must be equal, each once).
 * The racers are the suite's (test/store/racers/, run as processes by bench/lib/racers.ts): each waits for a
 * shared start instant after loading. The stored executions are read back through the public write path
 * (bench/lib/stored-ids.ts: recording is idempotent by id).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openToolgraph } from "../src/index.ts";
import { deadOwner, fire, startRacer } from "./lib/racers.ts";
import { storedAmong } from "./lib/stored-ids.ts";

/** The `toolgraph` command from the sources (src/cli/toolgraph.mjs runs it through tsx). */
const CLI = join(import.meta.dirname, "..", "src", "cli", "toolgraph.mjs");
/** The suite's racer scripts. */
const RACERS = join(import.meta.dirname, "..", "test", "store", "racers");

export interface LockRaceResult {
  lock: {
    processes: number;
    rounds: number;
    holds: number;
    refusals: number;
    refusalsNamingHolder: number;
    overlaps: number;
    wallMs: number;
  };
  record: {
    processes: number;
    rounds: number;
    exit0: number;
    exit4: number;
    other: number;
    acknowledged: number;
    stored: number;
    missing: number;
    extra: number;
    wallMs: number;
  }[];
}

export async function runLockRace(o: {
  processes: number;
  rounds: number;
  recordRounds: number;
}): Promise<LockRaceResult> {
  const dir = mkdtempSync(join(tmpdir(), "tg-race-bench-"));
  try {
    // The lock itself.
    const log = join(dir, "lock.log");
    writeFileSync(log, "");
    const t0 = performance.now();
    const cfg = {
      dir: join(dir, "lock"),
      go: join(dir, "lock.go"),
      rounds: o.rounds,
      period: 100,
      holdMs: 5,
      log,
      stale: await deadOwner(),
    };
    const racers = Array.from({ length: o.processes }, () => startRacer(join(RACERS, "lock-racer.ts"), cfg));
    await fire(racers, cfg.go);
    await Promise.all(racers.map((r) => r.exit));
    const lines = readFileSync(log, "utf8").trim().split("\n");
    const pids = new Set(racers.map((r) => String(r.child.pid)));
    const refusals = lines.filter((l) => l.startsWith("refused"));
    const lock = {
      processes: o.processes,
      rounds: o.rounds,
      holds: lines.filter((l) => l.startsWith("in ")).length,
      refusals: refusals.length,
      refusalsNamingHolder: refusals.filter((l) => pids.has(l.split(" ")[4]!)).length,
      overlaps: lines.filter((l) => l.startsWith("OVERLAP")).length,
      wallMs: performance.now() - t0,
    };

    // Whole `toolgraph record` processes.
    const home = join(dir, "home");
    const exec = (id: string) => ({
      id,
      intent: "ship a fix",
      startedAt: "2026-01-01T00:00:00.000Z",
      success: true,
      steps: [{ tool: "git.commit" }, { tool: "git.push", dependsOn: [0] }],
    });
    writeFileSync(join(dir, "seed.json"), JSON.stringify(exec("seed")));
    // The seed is recorded by the `toolgraph` command itself (the sources' entry, as development runs it).
    const seed = spawnSync(
      process.execPath,
      [CLI, "record", join(dir, "seed.json"), "--auto-register", "--home", home, "--database", ""],
      { stdio: "ignore" },
    );
    if (seed.status !== 0) throw new Error(`toolgraph record (seed) exited ${seed.status}`);
    const record: LockRaceResult["record"] = [];
    const acknowledged = new Set<string>(["seed"]);
    // Stored as the rounds found them (asking stores a missing id, so each id is asked once: by its round).
    const stored = new Set<string>();
    for (let round = 0; round < o.recordRounds; round++) {
      if (round % 2 === 1) writeFileSync(join(home, "toolgraph.lock"), await deadOwner());
      const go = join(dir, `record-${round}.go`);
      const t1 = performance.now();
      const rs = Array.from({ length: o.processes }, (_, i) => {
        const file = join(dir, `run-${round}-${i}.json`);
        writeFileSync(file, JSON.stringify(exec(`run-${round}-${i}`)));
        return startRacer(join(RACERS, "record-racer.ts"), {
          go,
          argv: ["record", file, "--auto-register", "--json", "--home", home, "--database", ""],
        });
      });
      await fire(rs, go);
      const codes = await Promise.all(rs.map((r) => r.exit));
      rs.forEach((r, i) => {
        const res = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as { code?: number; out?: string };
        if (res.code === 0 && /"inserted":1/.test(res.out ?? "")) acknowledged.add(`run-${round}-${i}`);
      });
      const tg = await openToolgraph({ home, database: "", embeddings: "hash" });
      const ids = [...(round === 0 ? ["seed"] : []), ...rs.map((_, i) => `run-${round}-${i}`)];
      for (const id of await storedAmong(tg, ids, { tool: "git.commit" })) stored.add(id);
      await tg.close();
      const mine = (id: string) => id.startsWith(`run-${round}-`);
      record.push({
        processes: o.processes,
        rounds: 1,
        exit0: codes.filter((c) => c === 0).length,
        exit4: codes.filter((c) => c === 4).length,
        other: codes.filter((c) => c !== 0 && c !== 4).length,
        acknowledged: [...acknowledged].filter(mine).length,
        stored: [...stored].filter(mine).length,
        missing: [...acknowledged].filter((id) => !stored.has(id)).length,
        extra: [...stored].filter((id) => mine(id) && !acknowledged.has(id)).length,
        wallMs: performance.now() - t1,
      });
    }
    return { lock, record };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
