/**
 * The package version, read once from package.json through the package's own "exports" (the same path from
 * the sources and from the built dist/), so that the CLI, the HTTP OpenAPI document and the MCP server
 * info never disagree with what npm installed.
 */
import { createRequire } from "node:module";

export const VERSION: string = (createRequire(import.meta.url)("toolgraph/package.json") as { version: string })
  .version;
