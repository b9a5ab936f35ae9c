/**
 * Advice an error gives (what the caller can change to succeed), spelled for the door that returns it. The
 * store or job that raises the error attaches the advice as data (`ToolgraphError.advice`,
 * `LineError.advice`); its message ends with the library's spelling, and each door re-spells it with
 * `adviceText(advice, door)`. So an HTTP or MCP error names the request field or header, the CLI its
 * flag, and no door advises another door's option.
 */

/** Who reads the error: the command line, the HTTP API, an MCP client, or a program using the library. */
export type Door = "cli" | "http" | "mcp" | "library";

export type Advice =
  /** Register the tools and capabilities that executions name but the catalog lacks. */
  | { kind: "auto-register" }
  /** Read another project of the database, one that has tools. */
  | { kind: "project"; project: string }
  /** Import a catalog into this project, which has none. */
  | { kind: "import-catalog" };

/** The request header that names the project (src/server/http-server.ts PROJECT_HEADER). */
const PROJECT_HEADER = "x-toolgraph-project";

/** The text appended to an error's message: it begins with its own separator (" (", " — "). */
export function adviceText(advice: Advice, door: Door): string {
  switch (advice.kind) {
    case "auto-register": {
      const how = {
        cli: "pass --auto-register",
        http: "add ?autoRegister=true to the request",
        mcp: 'set "autoRegister": true in the arguments',
        library: "pass { autoRegister: true }",
      }[door];
      return ` (import it in the catalog first, or ${how})`;
    }
    case "project": {
      const p = advice.project;
      const how = {
        cli: `--project ${p}`,
        http: `"project": ${JSON.stringify(p)} in the body, or the header ${PROJECT_HEADER}: ${p}`,
        mcp: `the header ${PROJECT_HEADER}: ${p} on /mcp, or TOOLGRAPH_PROJECT=${p} where the MCP server starts`,
        library: `{ project: ${JSON.stringify(p)} }`,
      }[door];
      return ` — e.g. ${how}`;
    }
    case "import-catalog": {
      const how = {
        cli: "toolgraph import catalog FILE, or toolgraph demo",
        http: "POST /v1/import/catalog",
        mcp: "no MCP tool imports one: use the HTTP API, POST /v1/import/catalog",
        library: "tg.importCatalog(…)",
      }[door];
      return ` (${how})`;
    }
  }
}

/** `message`, whose end is the library's spelling of `advice`, with the advice spelled for `door` instead. */
export function respell(message: string, advice: Advice | undefined, door: Door): string {
  return respellFrom(message, advice, "library", door);
}

/** `message`, whose end is `from`'s spelling of `advice`, with the advice spelled for `to` instead. */
export function respellFrom(message: string, advice: Advice | undefined, from: Door, to: Door): string {
  if (!advice || from === to) return message;
  const was = adviceText(advice, from);
  return message.endsWith(was) ? message.slice(0, message.length - was.length) + adviceText(advice, to) : message;
}

/** Reported problems (a result's `invalid` lines) with their messages spelled for `door`. */
export function respellAll<T extends { message: string; advice?: Advice | undefined }>(
  items: readonly T[],
  door: Door,
): T[] {
  return items.map((e) => (e.advice ? { ...e, message: respell(e.message, e.advice, door) } : e));
}
