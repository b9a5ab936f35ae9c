/**
 * The web console: `GET /ui` (the page), `/ui/app.js` (the script), `/ui/app.css`, and the JSON it reads
 * under `/v1/console/*` (graph, tool, dashboard). Search and plan go through the ordinary /v1 endpoints.
 *
 * The script (app.ts: sigma.js + graphology) is bundled for the browser by `npm run build`
 * (src/server/ui/build-console.mjs → app.bundle.js beside this file in dist/, with the page and style sheet), so
 * the published package needs neither esbuild nor a CDN and no built file is committed. Run from sources
 * (tests, tsx) there is no bundle: the first request bundles the same entry with esbuild (a
 * devDependency) and this console instance keeps it (~0.5 s once).
 *
 * Auth: the server's bearer token. A browser cannot set a header on navigation, so `/ui?token=…` with the
 * right token opens a session (src/server/sessions.ts: a random id in an HttpOnly, SameSite=Strict cookie
 * with an expiry) and redirects to `/ui`; the server accepts a live session like the header, for writes only
 * from its own origin.
 */
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import type { Toolgraph } from "../../library/toolgraph.ts";
import { HttpError } from "../errors.ts";
import { consoleDashboard, consoleGraph, consoleTool } from "./console-data.ts";
import { consoleScript } from "./console-script.ts";

const HERE = fileURLToPath(new URL(".", import.meta.url));

export interface ConsoleOptions {
  /** Project when the request names none. */
  defaultProject: string;
  /** The clock (ms). Default Date.now. */
  now?: (() => number) | undefined;
}

export interface Console {
  /** Serves the request when it is a console path (returns true), else returns false. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, project: string | undefined): Promise<boolean>;
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "content-type": type,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(body);
}

function json(res: ServerResponse, value: unknown): void {
  send(res, 200, "application/json; charset=utf-8", JSON.stringify(value));
}

export function createConsole(tg: Toolgraph, options: ConsoleOptions): Console {
  const now = options.now ?? Date.now;
  let bundle: Promise<string> | undefined;

  return {
    async handle(req, res, url, requested) {
      const path = url.pathname;
      if (path !== "/ui" && !path.startsWith("/ui/") && !path.startsWith("/v1/console/")) return false;
      const method = req.method ?? "GET";
      if (method !== "GET" && method !== "HEAD")
        throw new HttpError(405, "method-not-allowed", `${method} ${path}: use GET`, {
          headers: { allow: "GET, HEAD" },
        });
      const project = requested ?? options.defaultProject;
      switch (path) {
        case "/ui":
        case "/ui/":
        case "/ui/index.html":
          send(res, 200, "text/html; charset=utf-8", await readFile(`${HERE}index.html`, "utf8"));
          return true;
        case "/ui/app.css":
          send(res, 200, "text/css; charset=utf-8", await readFile(`${HERE}app.css`, "utf8"));
          return true;
        case "/ui/app.js": {
          bundle ??= consoleScript();
          let text: string;
          try {
            text = await bundle;
          } catch (err) {
            bundle = undefined;
            throw err;
          }
          send(res, 200, "text/javascript; charset=utf-8", text);
          return true;
        }
        case "/v1/console/graph":
          json(res, await consoleGraph(tg, project));
          return true;
        case "/v1/console/tool": {
          const id = url.searchParams.get("id");
          if (!id) throw new HttpError(400, "invalid-input", "id: the tool id is required (?id=…)", { field: "id" });
          const detail = await consoleTool(tg, project, id);
          if (!detail)
            throw new HttpError(
              404,
              "not-found",
              `id: no tool ${JSON.stringify(id)} in project ${JSON.stringify(project)}`,
              { field: "id" },
            );
          json(res, detail);
          return true;
        }
        case "/v1/console/dashboard": {
          const raw = url.searchParams.get("days") ?? "7";
          const days = Number(raw);
          if (!Number.isFinite(days) || days <= 0 || days > 365)
            throw new HttpError(
              400,
              "invalid-input",
              `days: must be a number in (0, 365], got ${JSON.stringify(raw)}`,
              { field: "days" },
            );
          json(res, await consoleDashboard(tg, project, { days, now: now() }));
          return true;
        }
        default:
          throw new HttpError(404, "not-found", `no console path ${path}`);
      }
    },
  };
}
