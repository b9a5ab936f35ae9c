/** The numeric flags of `toolgraph gateway`, checked: a usage error names the flag and its range. */
import { UsageError } from "../command.ts";

function intOption(v: unknown, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${String(v)}`);
  return n;
}

export function gatewayNumbers(values: Record<string, unknown>) {
  const expose = intOption(values.expose, "expose", 0, 100);
  const idleMs = intOption(values["idle-ms"], "idle-ms", 1, 86_400_000);
  const port = intOption(values.port, "port", 0, 65535) ?? 8787;
  const sessionIdleMs = intOption(values["session-idle-ms"], "session-idle-ms", 1000, 86_400_000);
  const maxSessions = intOption(values["max-sessions"], "max-sessions", 1, 100_000);
  const retireAfterMs = intOption(values["retire-after-ms"], "retire-after-ms", 0, 31_536_000_000);
  return { expose, idleMs, port, sessionIdleMs, maxSessions, retireAfterMs };
}
