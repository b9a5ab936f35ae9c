/**
 * The web console's sessions: `/ui?token=…` with the right token issues a random session id (32 bytes,
 * base64url) that the browser keeps in an HttpOnly, SameSite=Strict cookie with an expiry; the server
 * keeps the ids it issued, each until its expiry. The cookie is never the token itself, so a leaked cookie
 * (a log, a shared browser profile) ends with its session instead of opening the server for good, and a
 * restarted server forgets every session. Why these defaults: docs/decisions/web-security.md.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type OriginPolicy, originProblem } from "../mcp/origin.ts";
import { HttpError } from "./errors.ts";
import { bearerMatches } from "./request.ts";

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

/**
 * `/ui?token=…`: the right token opens a console session, kept in an HttpOnly SameSite=Strict cookie with an
 * expiry (a browser cannot send the header); the cookie holds the session's random id, not the token.
 */
export function consoleLogin(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: { token: string; sessions: Sessions },
): void {
  const { token, sessions } = deps;
  const given = url.searchParams.get("token") ?? "";
  if (token !== "" && !bearerMatches(`Bearer ${given}`, token)) {
    throw new HttpError(401, "unauthorized", "wrong token in /ui?token=…", {
      headers: { "www-authenticate": 'Bearer realm="toolgraph"' },
    });
  }
  url.searchParams.delete("token");
  const rest = url.searchParams.toString();
  res.writeHead(303, {
    location: `/ui${rest ? `?${rest}` : ""}`,
    ...(token === ""
      ? {}
      : { "set-cookie": sessions.issue("encrypted" in req.socket && req.socket.encrypted === true).cookie }),
    "cache-control": "no-store",
    "content-length": 0,
  });
  res.end();
}

/**
 * A page that reached this server under another name (DNS rebinding) or from another origin: refused on every
 * route but the probes (/health, /ready), before auth (a server without a token has no other gate).
 */
export function checkOrigin(
  req: IncomingMessage,
  path: string,
  boundAddress: string | undefined,
  policy: OriginPolicy | undefined,
): void {
  const refused = originProblem(req, boundAddress, policy);
  if (refused) throw new HttpError(403, "forbidden", `${path}: ${refused}`);
}

/** The bearer token, or the console's session cookie, whose writes must come from the server's own pages. */
export function checkCredentials(
  req: IncomingMessage,
  method: string,
  path: string,
  bearerOk: (req: IncomingMessage) => boolean,
  sessions: Sessions,
): void {
  if (bearerOk(req)) return;
  if (!sessions.valid(req)) {
    throw new HttpError(401, "unauthorized", "missing or wrong bearer token (send Authorization: Bearer <token>)", {
      headers: { "www-authenticate": 'Bearer realm="toolgraph"' },
    });
  }
  if (
    method !== "GET" &&
    method !== "HEAD" &&
    req.headers.origin === undefined &&
    req.headers["sec-fetch-site"] !== "same-origin"
  ) {
    throw new HttpError(
      403,
      "forbidden",
      `${method} ${path}: a request authorized by the console's cookie must be same-origin (send Origin, or use the bearer token)`,
    );
  }
}
