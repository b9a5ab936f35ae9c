/**
 * What the gateway says about its catalog: the log lines of one server's sync (tools the catalog refused, no
 * longer listed, retired), and the error a search gets on an empty catalog while upstreams are still being
 * listed (which servers are pending and why, instead of the CLI's "import a catalog" advice).
 */
import { ToolgraphError } from "../contract/errors.ts";
import type { Toolgraph } from "../library/toolgraph.ts";
import { boundLine, boundList } from "./bounded-line.ts";
import type { Upstream } from "./upstream.ts";

type SyncResult = Awaited<ReturnType<Toolgraph["syncServerTools"]>>;

export function logSync(server: string, r: SyncResult, retireAfterMs: number, log: (line: string) => void): void {
  for (const x of r.rejected.slice(0, 10))
    log(`toolgraph gateway: ${server}: tool ${x.tool} left out of the catalog: ${x.problem}`);
  if (r.rejected.length > 10)
    log(`toolgraph gateway: ${server}: … ${r.rejected.length - 10} more tools left out of the catalog`);
  if (r.unavailable.length > 0)
    log(`toolgraph gateway: ${server}: no longer listed, marked unavailable: ${boundList(r.unavailable)}`);
  if (r.retired.length > 0)
    log(`toolgraph gateway: ${server}: unlisted for over ${retireAfterMs} ms, retired: ${boundList(r.retired)}`);
}

/** An empty-project error explained by the upstreams' state (`synced`: the servers in the catalog); others pass. */
export function explainEmpty(
  err: unknown,
  upstreams: readonly Upstream[],
  synced: ReadonlySet<string>,
  project: string,
): unknown {
  if (!(err instanceof ToolgraphError) || err.code !== "empty-project") return err;
  const pending = upstreams.filter((u) => !synced.has(u.name));
  const describe = (u: Upstream) => {
    const st = u.status();
    if (u.listed) return `${u.name} (listed ${st.tools} tools, being added to the catalog)`;
    const retry = st.retryAt ? `, retrying at ${st.retryAt}` : "";
    return `${u.name} (${st.state}${st.state === "down" && st.error ? `: ${boundLine(st.error, 300)}` : ""}${retry})`;
  };
  if (pending.length > 0) {
    return new ToolgraphError(
      "catalog-loading",
      `the gateway's catalog is still loading: no upstream tool is listed yet; pending: ${pending.map(describe).join("; ")}. Try again shortly (gateway_status shows progress)`,
      { project, pending: pending.map((u) => u.name) },
    );
  }
  return new ToolgraphError(
    "empty-project",
    `the gateway's upstream servers list no tools (${upstreams.map((u) => u.name).join(", ")}): nothing to search`,
    { project, pending: [] },
  );
}
