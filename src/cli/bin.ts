#!/usr/bin/env node
// The `toolgraph` command of the built package (dist/src/cli/bin.js). From the sources, toolgraph.mjs runs
// the same main() through tsx.
import { main } from "./main.ts";

process.exitCode = await main(process.argv.slice(2));
