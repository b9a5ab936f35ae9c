/** The CLI's commands, in the order --help lists them. */
import { OPERATION_LIST } from "../../contract/operations.ts";
import type { Command } from "../command.ts";
import { benchCommand } from "./bench.ts";
import { demoCommand } from "./demo.ts";
import { exportCommand } from "./export.ts";
import { importCommand, initCommand, migrateCommand, statsCommand } from "./foundation.ts";
import { gatewayCommand } from "./gateway.ts";
import { calibrateCommand, learnWeightsCommand, recordCommand } from "./learning.ts";
import { operationCommand } from "./operation.ts";
import { capabilitiesCommand, discoverCommand, nextCommand, searchCommand } from "./recommend.ts";
import { mcpCommand, serveCommand } from "./serve.ts";
import { alternativesCommand, dagCommand, planCommand } from "./workflow.ts";

/** The operations of the table whose commands are written by hand (their own flags and tables). */
const WRITTEN = [
  searchCommand,
  nextCommand,
  capabilitiesCommand,
  discoverCommand,
  dagCommand,
  planCommand,
  alternativesCommand,
];
/** Every other operation of the table gets its command from the table's spelling. */
const GENERATED = OPERATION_LIST.filter((op) => !WRITTEN.some((c) => c.name === op.cli.command)).map(operationCommand);

export const COMMANDS: Command[] = [
  initCommand,
  migrateCommand,
  importCommand,
  recordCommand,
  ...WRITTEN,
  ...GENERATED,
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
