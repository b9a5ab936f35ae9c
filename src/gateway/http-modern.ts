/**
 * The gateway's 2026-07-28 requests over HTTP (no session): one handler for every such request, which builds a
 * server per request (modern-door.ts); the server finds what it needs of its request (the caller, the sessions
 * it holds) by the web Request it serves. Its calls join the gateway session of their execution group, created at
 * need in the shared session table (http-sessions.ts) and held until the request is answered
 * (docs/decisions/gateway-stateless-executions.md). A refused request (header mismatch, unsupported version) is
 * answered in-band.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { ToolgraphError } from "../contract/errors.ts";
import type { TokenIdentity } from "../contract/gateway-policy.ts";
import { writeResponse } from "../mcp/http.ts";
import type { Gateway, GatewaySession } from "./gateway.ts";
import type { HttpSessions, OpenSession } from "./http-sessions.ts";
import { executionGroup, modernGatewayServer } from "./modern-door.ts";

/** What the 2026-07-28 server of one request needs to know of it: the caller, and the sessions it holds. */
interface Exchange {
  identity: TokenIdentity | undefined;
  caller: { identity: string; peer: string };
  held: OpenSession[];
}

export interface ModernHttp {
  serve(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    request: Request,
    identity: TokenIdentity | undefined,
  ): Promise<void>;
  close(): Promise<void>;
}

export function modernHttp(gateway: Gateway, open: HttpSessions): ModernHttp {
  const exchanges = new WeakMap<Request, Exchange>();

  /** The session of a 2026-07-28 call's group (created at need), held until its request is answered. */
  const groupSession = async (
    x: Exchange,
    meta: Record<string, unknown> | undefined,
    clientName: string | undefined,
  ): Promise<GatewaySession> => {
    const key = `2026:${executionGroup(meta, clientName, x.caller).key}`;
    let s = open.get(key);
    if (!s) {
      if (!(await open.makeRoom())) throw new ToolgraphError("gateway-busy", open.full());
      const session = gateway.createSession({
        policy: x.identity?.policy,
        user: x.identity?.user ?? gateway.options.user ?? clientName,
      });
      s = open.add(key, undefined, session);
    }
    s.active++;
    x.held.push(s);
    open.touch(s);
    return s.session;
  };

  const handler = createMcpHandler(
    ({ requestInfo }) => {
      const x = requestInfo && exchanges.get(requestInfo);
      return modernGatewayServer(gateway, async ({ meta, clientName }) => {
        if (!x) throw new Error("no exchange for this request");
        return groupSession(x, meta, clientName);
      });
    },
    { legacy: "reject", onerror: () => {} },
  );

  return {
    async serve(req, res, body, request, identity) {
      const x: Exchange = {
        identity,
        caller: { identity: identity?.policy ?? "", peer: req.socket.remoteAddress ?? "" },
        held: [],
      };
      exchanges.set(request, x);
      try {
        await writeResponse(await handler.fetch(request, { parsedBody: body }), res);
      } finally {
        for (const s of x.held) {
          s.active--;
          s.lastSeen = Date.now();
        }
      }
    },
    close: () => handler.close(),
  };
}
