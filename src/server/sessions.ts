/**
 * The web console's sessions: `/ui?token=…` with the right token issues a random session id (32 bytes,
 * base64url) that the browser keeps in an HttpOnly, SameSite=Strict cookie with an expiry; the server
 * keeps the ids it issued, each until its expiry. The cookie is never the token itself, so a leaked cookie
 * (a log, a shared browser profile) ends with its session instead of opening the server for good, and a
 * restarted server forgets every session. Why these defaults: docs/decisions/web-security.md.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const SESSION_DEFAULTS = {
  /** How long a console session lasts (ms). */
  ttlMs: 12 * 60 * 60 * 1000,
  /** Most sessions kept; past it, the oldest goes (each login adds one). */
  maxSessions: 1000,
} as const;

export const SESSION_COOKIE = "toolgraph_session";

export interface SessionOptions {
  /** Session lifetime in ms. Default 12 hours. */
  ttlMs?: number | undefined;
  /** Most live sessions kept. Default 1000. */
  maxSessions?: number | undefined;
  /** The clock (ms). Default Date.now. */
  now?: (() => number) | undefined;
}

export interface Sessions {
  /** A new session; `cookie` is the Set-Cookie value (`Secure` when `secure`). */
  issue(secure: boolean): { id: string; cookie: string };
  /** True when the request's session cookie names a live session. */
  valid(req: IncomingMessage): boolean;
}

/** The session id in the request's cookie, or undefined. */
export function sessionCookie(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function createSessions(options: SessionOptions = {}): Sessions {
  const ttlMs = options.ttlMs ?? SESSION_DEFAULTS.ttlMs;
  const max = options.maxSessions ?? SESSION_DEFAULTS.maxSessions;
  const now = options.now ?? Date.now;
  /** id → expiry (ms); insertion order is issue order. */
  const live = new Map<string, number>();
  return {
    issue(secure) {
      const id = randomBytes(32).toString("base64url");
      live.set(id, now() + ttlMs);
      while (live.size > max) live.delete(live.keys().next().value!);
      const cookie = `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(ttlMs / 1000)}${secure ? "; Secure" : ""}`;
      return { id, cookie };
    },
    valid(req) {
      const id = sessionCookie(req);
      if (id === undefined) return false;
      const expires = live.get(id);
      if (expires === undefined) return false;
      if (expires <= now()) {
        live.delete(id);
        return false;
      }
      return true;
    },
  };
}
