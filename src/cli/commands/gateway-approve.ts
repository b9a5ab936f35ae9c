/** `toolgraph gateway approve TOOL…`: the pending (changed) version of quarantined tools accepted, in the data directory's pin file. */
import { join, resolve } from "node:path";
import { type Command, EXIT, UsageError } from "../command.ts";

/** The data directory's path (as the store resolves it: --home, TOOLGRAPH_HOME, ./.toolgraph), or undefined in memory. */
export function homeDir(home: string | undefined): string | undefined {
  const h = home ?? process.env.TOOLGRAPH_HOME;
  if (h === "memory://") return undefined;
  return resolve(h && h.length > 0 ? h : ".toolgraph");
}

/** `toolgraph gateway approve TOOL…`: accepts the pending (changed) version of quarantined tools. */
export async function approve(ctx: Parameters<Command["run"]>[0]): Promise<number> {
  const patterns = ctx.positionals.slice(1);
  if (patterns.length === 0)
    throw new UsageError(
      "gateway approve TOOL…: name the quarantined tools to approve (<server>.<tool>, globs allowed)",
    );
  const home = homeDir(ctx.values.home as string | undefined);
  if (!home)
    throw new UsageError("gateway approve: pins are kept in the data directory; give --home DIR (not memory://)");
  const { PinStore } = await import("../../gateway/trust.ts");
  const store = new PinStore(join(home, "gateway-pins.json"));
  const pending = store.quarantined().map((q) => q.tool);
  const done = store.approve(patterns, new Date().toISOString());
  if (ctx.json) ctx.out(JSON.stringify({ approved: done, stillQuarantined: pending.filter((t) => !done.includes(t)) }));
  else if (done.length === 0)
    ctx.err(
      `toolgraph gateway approve: no quarantined tool matches ${patterns.join(", ")}${pending.length > 0 ? ` (quarantined: ${pending.join(", ")})` : " (none is quarantined)"}`,
    );
  else ctx.out(`approved: ${done.join(", ")} (a running gateway takes them at their next call or list)`);
  return done.length > 0 ? EXIT.ok : EXIT.failure;
}
