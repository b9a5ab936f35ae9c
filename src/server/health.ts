/**
 * `GET /health` (liveness, cheap, open; `?details=1` with the token adds the project's counts). The readiness
 * behind `/ready` (warm-up steps, named checks) lives in readiness.ts, which other doors call and extend.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RecommenderApi } from "../contract/api.ts";
import { HttpError, toHttpError } from "./errors.ts";
import { requestProject } from "./request.ts";

export {
  type Check,
  type CheckResult,
  createReadiness,
  liveness,
  type Readiness,
  type ReadinessReport,
} from "./readiness.ts";

export interface HealthRouteDeps {
  api: RecommenderApi;
  bearerOk(req: IncomingMessage): boolean;
  options: {
    defaultProject?: string | undefined;
    healthExtra?: ((ctx: { authorized: boolean }) => Record<string, unknown>) | undefined;
  };
  respond(res: ServerResponse, status: number, value: unknown, headers?: Record<string, string>): void;
  log(line: string): void;
}

/**
 * `GET /health`: liveness, open to everyone and cheap (one `SELECT 1`, no counts). `?details=1` adds the
 * project's counts (the stats) and needs the bearer token when one is set.
 */
export async function healthRoute(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: HealthRouteDeps,
): Promise<void> {
  const { api, bearerOk, options, respond, log } = deps;
  const details = url.searchParams.get("details");
  const wantDetails = details !== null && details !== "0" && details !== "false";
  if (wantDetails && !bearerOk(req)) {
    throw new HttpError(401, "unauthorized", "/health?details needs the bearer token (plain /health does not)", {
      headers: { "www-authenticate": 'Bearer realm="toolgraph"' },
    });
  }
  let project: string | undefined;
  try {
    project = requestProject(req, url, undefined) ?? options.defaultProject;
  } catch {
    project = options.defaultProject;
  }
  const authorized = bearerOk(req);
  try {
    const extra = options.healthExtra?.({ authorized }) ?? {};
    const status = extra.ok === false ? 503 : 200;
    if (wantDetails || !api.ping) {
      const s = (await api.stats(project === undefined ? {} : { project })) as Record<string, unknown>;
      respond(
        res,
        status,
        wantDetails
          ? { ok: true, ...s, ...extra }
          : { ok: true, ...(authorized ? { backend: s.backend, project: s.project } : {}), ...extra },
      );
    } else {
      const p = await api.ping();
      respond(res, status, { ok: true, ...(authorized ? { backend: p.backend } : {}), ...extra });
    }
  } catch (err) {
    const m = toHttpError(err);
    if (m.internal) log(`toolgraph server: health check failed: ${(err as Error)?.stack ?? String(err)}`);
    // Without the token: ok or not, nothing more (an error text may name a host or a path).
    if (!authorized) return respond(res, 503, { ok: false }, { "retry-after": "1" });
    respond(
      res,
      503,
      { ok: false, error: m.internal ? { code: "unavailable", message: "the database did not answer" } : m.body.error },
      { "retry-after": "1" },
    );
  }
}
