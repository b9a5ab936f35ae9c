#!/usr/bin/env node
// The `toolgraph` command. Runs the TypeScript sources through tsx (no build step, nothing compiled
// is committed); see src/cli/main.ts for the commands.
import { register } from "tsx/esm/api";

register();
const { main } = await import("./main.ts");
process.exitCode = await main(process.argv.slice(2));
