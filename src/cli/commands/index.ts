/** The CLI's commands, in the order --help lists them. */
import type { Command } from "../command.ts";
import { benchCommand } from "./bench.ts";
import { demoCommand } from "./demo.ts";
import { exportCommand } from "./export.ts";
import { importCommand, initCommand, migrateCommand, statsCommand } from "./foundation.ts";
import { gatewayCommand } from "./gateway.ts";
import {
  alternativesCommand,
  calibrateCommand,
  capabilitiesCommand,
  dagCommand,
  discoverCommand,
  learnWeightsCommand,
  nextCommand,
  planCommand,
  recordCommand,
  searchCommand,
} from "./recommend.ts";
import { mcpCommand, serveCommand } from "./serve.ts";

export const COMMANDS: Command[] = [
  initCommand,
  migrateCommand,
  importCommand,
  recordCommand,
  searchCommand,
  nextCommand,
  capabilitiesCommand,
  discoverCommand,
  dagCommand,
  planCommand,
  alternativesCommand,
  learnWeightsCommand,
  calibrateCommand,
  statsCommand,
  exportCommand,
  serveCommand,
  mcpCommand,
  gatewayCommand,
  benchCommand,
  demoCommand,
];
