/** The CLI's commands, in the order --help lists them. */
import type { Command } from "../command.ts";
import { demoCommand } from "./demo.ts";
import { importCommand, initCommand, migrateCommand, statsCommand } from "./foundation.ts";

export const COMMANDS: Command[] = [initCommand, migrateCommand, importCommand, statsCommand, demoCommand];
