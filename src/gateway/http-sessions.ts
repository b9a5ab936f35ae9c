/**
 * The gateway's open HTTP sessions: one gateway session per 2025 MCP session id, or per 2026-07-28 execution
 * group (modern-door.ts). Least recently used first; a session answering a request is never idle and never
 * evicted, one holding an event stream open is never idle but evictable at the cap. `sessionIdleMs` without a
 * request, eviction at `maxSessions`, or `close()` ends a session (its open execution recorded): the defaults
 * and why in docs/decisions/gateway-churn.md.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { GatewaySession } from "./gateway-session.ts";

export interface OpenSession {
  /** The map key: the MCP session id (2025), or the execution group's key (2026-07-28: modern-door.ts). */
  key: string;
  /** The 2025 session's transport; none for a 2026-07-28 group, which has no connection of its own. */
  transport: StreamableHTTPServerTransport | undefined;
  session: GatewaySession;
  lastSeen: number;
  /** Requests of this session being answered now (never idle, never evicted). */
  active: number;
  /** Open GET event streams (a connected client: never idle, but evictable at the cap). */
  streams: number;
}

export class HttpSessions {
  // Map order is least recently used first: a session is re-inserted on each request.
  private readonly open = new Map<string, OpenSession>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly maxSessions: number,
    private readonly log: (line: string) => void,
  ) {
    this.timer = setInterval(() => void this.sweep(), Math.max(10, Math.min(idleMs / 2, 60_000)));
    this.timer.unref();
  }

  get size(): number {
    return this.open.size;
  }

  get(key: string): OpenSession | undefined {
    return this.open.get(key);
  }

  has(key: string): boolean {
    return this.open.has(key);
  }

  /** Adds a session (the caller has made room). */
  add(key: string, transport: StreamableHTTPServerTransport | undefined, session: GatewaySession): OpenSession {
    const s: OpenSession = { key, transport, session, lastSeen: Date.now(), active: 0, streams: 0 };
    this.open.set(key, s);
    return s;
  }

  /** Forgets a session whose transport closed (its gateway session is closed by the caller). */
  delete(key: string): void {
    this.open.delete(key);
  }

  async end(s: OpenSession): Promise<void> {
    this.open.delete(s.key);
    await s.session.close();
    await s.transport?.close().catch(() => undefined);
  }

  /** Ends the sessions idle for longer than `idleMs` (also run by a timer); returns how many. */
  async sweep(): Promise<number> {
    const now = Date.now();
    const idle = [...this.open.values()].filter(
      (s) => s.active === 0 && s.streams === 0 && now - s.lastSeen > this.idleMs,
    );
    for (const s of idle) await this.end(s);
    if (idle.length > 0)
      this.log(`toolgraph gateway: ended ${idle.length} HTTP session(s) idle for over ${this.idleMs} ms`);
    return idle.length;
  }

  /** Makes room for one more session at the cap (ends the least recently used idle one); false when none can go. */
  async makeRoom(): Promise<boolean> {
    if (this.open.size >= this.maxSessions) await this.sweep();
    if (this.open.size < this.maxSessions) return true;
    const lru = [...this.open.values()].find((s) => s.active === 0);
    if (!lru) return false;
    this.log(`toolgraph gateway: ${this.open.size} HTTP sessions open (the cap): ended the least recently used one`);
    await this.end(lru);
    return true;
  }

  full(): string {
    return `the gateway has ${this.open.size} HTTP sessions, all answering a request: try again shortly`;
  }

  touch(s: OpenSession): void {
    s.lastSeen = Date.now();
    this.open.delete(s.key);
    this.open.set(s.key, s);
  }

  /** Answers one request of a 2025 session on its transport, counted (as a request or an open stream) meanwhile. */
  async serve(s: OpenSession, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const stream = req.method === "GET";
    if (stream) s.streams++;
    else s.active++;
    this.touch(s);
    try {
      await s.transport!.handleRequest(req, res, body);
    } finally {
      // The node transport resolves a GET when its stream closes; one that returns earlier is counted until then.
      const done = () => {
        if (stream) s.streams--;
        else s.active--;
        s.lastSeen = Date.now();
      };
      if (stream && !res.writableEnded && !res.destroyed) res.once("close", done);
      else done();
    }
  }

  /** No more idle sweeps by the timer. */
  stopSweeping(): void {
    clearInterval(this.timer);
  }

  /** Ends every session. */
  async close(): Promise<void> {
    this.stopSweeping();
    for (const s of [...this.open.values()]) await this.end(s);
    this.open.clear();
  }
}
