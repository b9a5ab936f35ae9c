/** Process exit codes of the CLI (README "Exit codes"); errorOutcome (error-mapping.ts) picks one per error. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  invalidInput: 3,
  databaseUnavailable: 4,
} as const;
