/** The gateway's learning on /metrics: what was stored, what waits (backlog, spool) and what was refused. */
import type { MetricsRegistry } from "../ops/metrics.ts";
import type { Gateway } from "./gateway.ts";

/** Registers the gateway's counters and backlog gauges on a server's registry. */
export function registerGatewayMetrics(metrics: MetricsRegistry, gateway: Gateway): void {
  metrics.collect({
    name: "toolgraph_gateway_recorded_total",
    help: "Gateway executions and steps stored, failed write attempts, executions refused or dropped, steps skipped",
    type: "counter",
    collect: () => {
      const r = gateway.status().recorded;
      return (["executions", "steps", "failedWrites", "rejected", "dropped", "skippedSteps"] as const).map((k) => ({
        labels: { what: k },
        value: r[k],
      }));
    },
  });
  metrics.collect({
    name: "toolgraph_gateway_write_backlog",
    help: "Gateway executions waiting to be written, by where they wait (memory, spool)",
    type: "gauge",
    collect: () => {
      const r = gateway.status().recorded;
      return [
        { labels: { where: "memory" }, value: r.backlog - r.spooled },
        { labels: { where: "spool" }, value: r.spooled },
      ];
    },
  });
}
