/**
 * A route's input from the request: its query flags, the media type it accepts (415 otherwise), the body read
 * within the size bound and parsed (JSON, or JSONL text for the import routes), and the project it names.
 * Not validated here: the api validates each request once with the route's schema (the one OpenAPI shows).
 */
import type { IncomingMessage } from "node:http";
import { readBody } from "./body.ts";
import { HttpError } from "./errors.ts";
import { isJsonType, mediaType, parseJson, requestProject } from "./request.ts";
import { JSONL_TYPES, parseFlags, type Route, type RouteInput } from "./route.ts";

export async function routeInput(
  route: Route,
  req: IncomingMessage,
  url: URL,
  limits: { bodyLimit: number; defaultProject: string | undefined },
): Promise<RouteInput> {
  const { bodyLimit, defaultProject } = limits;
  const flags = parseFlags(route, url.searchParams);
  if (route.body === "none")
    return { body: undefined, text: undefined, flags, project: requestProject(req, url, undefined) ?? defaultProject };
  const type = mediaType(req);
  const accepted = route.body === "json" ? ["application/json"] : [...JSONL_TYPES, "application/json"];
  const jsonl = route.body === "jsonl" && JSONL_TYPES.includes(type);
  if (!jsonl && !isJsonType(type)) {
    throw new HttpError(
      415,
      "unsupported-media-type",
      `content type ${JSON.stringify(type || "(none)")} is not accepted here; send ${accepted.join(" or ")}`,
      {
        headers: { "accept-post": accepted.join(", ") },
      },
    );
  }
  const buf = await readBody(req, bodyLimit);
  if (jsonl)
    return {
      body: undefined,
      text: buf.toString("utf8"),
      flags,
      project: requestProject(req, url, undefined) ?? defaultProject,
    };

  const value = parseJson(buf, route.body === "json" ? "a JSON object" : "a JSON array", route.body === "jsonl");
  if (route.body === "jsonl") {
    if (!Array.isArray(value))
      throw new HttpError(400, "invalid-input", "expected a JSON array of records (or send application/x-ndjson)", {
        field: "",
      });
    return { body: value, text: undefined, flags, project: requestProject(req, url, undefined) ?? defaultProject };
  }
  let body = value;
  let bodyProject: unknown;
  if (value !== null && typeof value === "object" && !Array.isArray(value) && "project" in value) {
    const { project, ...rest } = value as Record<string, unknown>;
    bodyProject = project;
    body = rest;
  }
  const project = requestProject(req, url, bodyProject) ?? defaultProject;
  // Not validated here: the api validates each request once with the route's schema (the same one the
  // OpenAPI document shows), so a bad field reads the same on every door.
  return { body, text: undefined, flags, project };
}
