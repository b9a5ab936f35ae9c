/** The CLI's commands, in the order --help lists them. */
import { OPERATION_LIST } from "../../contract/operations.ts";
import type { Command } from "../command.ts";
import { benchCommand } from "./bench.ts";
import { capabilitiesCommand, discoverCommand } from "./capabilities.ts";
import { dagCommand } from "./dag.ts";
import { demoCommand } from "./demo.ts";
import { exportCommand } from "./export.ts";
import { gatewayCommand } from "./gateway.ts";
import { importCommand } from "./import.ts";
import { initCommand, migrateCommand } from "./init.ts";
import { calibrateCommand, learnWeightsCommand, recordCommand } from "./learning.ts";
import { nextCommand } from "./next.ts";
import { operationCommand } from "./operation.ts";
import { searchCommand } from "./search.ts";
import { mcpCommand, serveCommand } from "./serve.ts";
import { statsCommand } from "./stats.ts";
import { alternativesCommand, planCommand } from "./workflow.ts";

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
