/**
 * The data-directory lock decides staleness by pid + boot id + process start time, so a pid reused by a
 * new process (a container whose process is always PID 1) does not keep the directory locked forever.
 * Reuse is simulated by lock files naming a live pid with another start time or boot id.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolgraphError } from "../../src/contract/errors.ts";
import {
  acquireDataDirLock,
  acquireDataDirLockByFile,
  bootId,
  currentOwner,
  formatOwner,
  lockSocketName,
  parseOwner,
  processStartTime,
} from "../../src/store/data-dir-lock.ts";

const linux = process.platform === "linux";
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tg-lock-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lockFile = () => join(dir, "toolgraph.lock");
async function lockedBy(fn: () => unknown): Promise<number | undefined> {
  try {
    const l = (await fn()) as { release(): void };
    l.release();
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ToolgraphError);
    expect((e as ToolgraphError).code).toBe("database-locked");
    return ((e as ToolgraphError).details?.pid as number | undefined) ?? -1;
  }
}

describe("lock owner identity", () => {
  it("round-trips pid, boot id and start time; a pid-only file (older versions) parses with the pid alone", () => {
    const o = { pid: 4242, bootId: "b-1", startTime: "777" };
    expect(parseOwner(formatOwner(o))).toEqual(o);
    expect(parseOwner("4242\n")).toEqual({ pid: 4242, bootId: undefined, startTime: undefined });
    expect(parseOwner("garbage")).toBeUndefined();
    expect(parseOwner("-3\n")).toBeUndefined();
  });

  it.runIf(linux)("reads this process's boot id and start time from /proc, stable across reads", () => {
    const me = currentOwner();
    expect(me.bootId).toMatch(/^[0-9a-f-]{36}$/);
    expect(me.startTime).toMatch(/^\d+$/);
    expect(processStartTime(process.pid)).toBe(me.startTime);
    expect(bootId()).toBe(me.bootId);
  });
});

describe("acquireDataDirLock", () => {
  it("the same process opening twice is refused, naming itself; release frees the directory", async () => {
    const first = await acquireDataDirLock(dir);
    expect(readFileSync(lockFile(), "utf8")).toBe(formatOwner(currentOwner()));
    expect(await lockedBy(() => acquireDataDirLock(dir))).toBe(process.pid);
    first.release();
    expect(await lockedBy(() => acquireDataDirLock(dir))).toBeUndefined();
  });

  it("a lock of a dead pid is stale and taken over", async () => {
    const child = spawn(process.execPath, ["-e", "0"]);
    const deadPid = await new Promise<number>((res) => child.on("exit", () => res(child.pid!)));
    writeFileSync(lockFile(), formatOwner({ pid: deadPid, bootId: bootId(), startTime: "1" }));
    const l = await acquireDataDirLock(dir);
    expect(parseOwner(readFileSync(lockFile(), "utf8"))!.pid).toBe(process.pid);
    l.release();
  });

  it.runIf(linux)("PID reuse: a live pid with another start time (a restarted PID 1) is stale", async () => {
    const me = currentOwner();
    // The lock a killed predecessor left: same pid (ours, like PID 1 in a restarted container), earlier start.
    writeFileSync(
      lockFile(),
      formatOwner({ pid: me.pid, bootId: me.bootId, startTime: String(Number(me.startTime) - 1) }),
    );
    expect(await lockedBy(() => acquireDataDirLock(dir))).toBeUndefined();
  });

  it.runIf(linux)("PID reuse across a reboot: a live pid with another boot id is stale", async () => {
    const me = currentOwner();
    writeFileSync(
      lockFile(),
      formatOwner({ pid: me.pid, bootId: "00000000-0000-0000-0000-000000000000", startTime: me.startTime }),
    );
    expect(await lockedBy(() => acquireDataDirLock(dir))).toBeUndefined();
  });

  it.runIf(linux)(
    "another live process holding the lock with its real identity is respected; with a wrong start time it is not",
    async () => {
      const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
      try {
        await new Promise((r) => child.once("spawn", r));
        const pid = child.pid!;
        const start = processStartTime(pid);
        expect(start).toMatch(/^\d+$/);
        writeFileSync(lockFile(), formatOwner({ pid, bootId: bootId(), startTime: start }));
        expect(await lockedBy(() => acquireDataDirLock(dir))).toBe(pid);
        writeFileSync(lockFile(), formatOwner({ pid, bootId: bootId(), startTime: String(Number(start) + 1) }));
        expect(await lockedBy(() => acquireDataDirLock(dir))).toBeUndefined();
      } finally {
        child.kill();
      }
    },
  );

  it("a pid-only lock of a live process (written by an older version) is respected", async () => {
    writeFileSync(lockFile(), `${process.pid}\n`);
    expect(await lockedBy(() => acquireDataDirLock(dir))).toBe(process.pid);
  });
});

describe("the kernel-held mutex (Linux)", () => {
  it.runIf(linux)(
    "a holder killed with SIGKILL frees the directory at once; its file left behind is taken over",
    async () => {
      const script = `import { acquireDataDirLock } from ${JSON.stringify(join(process.cwd(), "src/store/data-dir-lock.ts"))};
      await acquireDataDirLock(${JSON.stringify(dir)}); console.log("held"); setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      await new Promise<void>((res) => child.stdout!.on("data", (d: Buffer) => d.toString().includes("held") && res()));
      expect(await lockedBy(() => acquireDataDirLock(dir))).toBe(child.pid);
      child.kill("SIGKILL");
      await new Promise((res) => child.once("exit", res));
      expect(parseOwner(readFileSync(lockFile(), "utf8"))!.pid).toBe(child.pid); // no exit handler ran
      const l = await acquireDataDirLock(dir);
      expect(parseOwner(readFileSync(lockFile(), "utf8"))!.pid).toBe(process.pid);
      l.release();
      expect(existsSync(lockFile())).toBe(false);
    },
  );

  it("one directory reached by two paths (a symlink) is one lock; two directories are two", async () => {
    const link = join(dir, "..", `${dir.split("/").at(-1)}-link`);
    symlinkSync(dir, link);
    try {
      expect(lockSocketName(link, "linux")).toBe(lockSocketName(dir, "linux"));
      const other = mkdtempSync(join(tmpdir(), "tg-lock-"));
      expect(lockSocketName(other, "linux")).not.toBe(lockSocketName(dir, "linux"));
      expect(lockSocketName(dir, "darwin")).toBeUndefined();
      rmSync(other, { recursive: true, force: true });
      if (linux) {
        const l = await acquireDataDirLock(dir);
        expect(await lockedBy(() => acquireDataDirLock(link))).toBe(process.pid);
        l.release();
      }
    } finally {
      rmSync(link, { force: true });
    }
  });
});

describe("the file-only lock (platforms without a kernel-released socket name)", () => {
  it("is created complete and exclusive: a second handle is refused naming the holder; release frees it", async () => {
    const l = acquireDataDirLockByFile(dir);
    expect(readFileSync(lockFile(), "utf8")).toBe(formatOwner(currentOwner()));
    expect(await lockedBy(() => acquireDataDirLockByFile(dir))).toBe(process.pid);
    l.release();
    expect(existsSync(lockFile())).toBe(false);
    expect(await lockedBy(() => acquireDataDirLockByFile(dir))).toBeUndefined();
  });

  it("takes a dead owner's file over and respects a live one's", async () => {
    const child = spawn(process.execPath, ["-e", "0"]);
    const deadPid = await new Promise<number>((res) => child.on("exit", () => res(child.pid!)));
    writeFileSync(lockFile(), formatOwner({ pid: deadPid, bootId: bootId(), startTime: "1" }));
    const l = acquireDataDirLockByFile(dir);
    expect(parseOwner(readFileSync(lockFile(), "utf8"))!.pid).toBe(process.pid);
    l.release();
    writeFileSync(lockFile(), `${process.pid}\n`);
    expect(await lockedBy(() => acquireDataDirLockByFile(dir))).toBe(process.pid);
  });
});
