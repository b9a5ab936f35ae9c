/**
 * How the CLI finds a running `toolgraph serve` that holds an embedded data directory: at start the server
 * writes `<dir>/toolgraph.server` (its URL, its identity as the data-directory lock records it, and a random
 * local token), readable by its owner only (mode 0600), and removes it when it exits cleanly. A file whose
 * process is gone (killed) is ignored, by the same identity check as the lock's (pid, boot id, start time).
 *
 * The token is a credential of this machine's user: the server accepts it besides its configured token
 * (TOOLGRAPH_TOKEN), so the CLI reaches a server that requires one without the user passing it around.
 * Why a file and not the lock socket: docs/decisions/cli-through-server.md.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { currentOwner, type LockOwner, ownerAlive, removeOwnFileOnce } from "../store/data-dir-lock.ts";

export const SERVER_FILE = "toolgraph.server";

export interface ServerFile {
  /** Base URL the server listens on, e.g. http://127.0.0.1:8787 */
  url: string;
  /** Bearer token the server accepts from this machine's user. */
  token: string;
  owner: LockOwner;
}

/** A fresh local token: 32 random bytes, base64url. */
export function newLocalToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Writes the server file of `dir` (0600, replaced in one step); returns a function that removes it if still ours. */
export function writeServerFile(dir: string, url: string, token: string): () => void {
  const path = join(dir, SERVER_FILE);
  const text = `${JSON.stringify({ url, token, owner: currentOwner() } satisfies ServerFile)}\n`;
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600); // the umask could only narrow it, but say it once
  renameSync(tmp, path);
  return removeOwnFileOnce(path, text);
}

/** The server file of `dir` when its server is still running; undefined when absent, unreadable or stale. */
export function readServerFile(dir: string): ServerFile | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(join(dir, SERVER_FILE), "utf8"));
  } catch {
    return undefined;
  }
  const v = value as Partial<ServerFile> | null;
  if (typeof v?.url !== "string" || typeof v.token !== "string" || typeof v.owner?.pid !== "number") return undefined;
  return ownerAlive(v.owner) ? (v as ServerFile) : undefined;
}
