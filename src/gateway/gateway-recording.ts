/**
 * The gateway's learning, written: each closed execution of a session (recorder.ts) loses the steps the catalog
 * refused (refused-steps.ts, counted) and goes through a DurableWriter (src/store/durable-writer.ts) to the
 * library's `recordExecution`, behind the catalog syncs (so a step's tool is in the catalog before its execution
 * is written). An execution that cannot be written (the database is down) is kept, spooled to `spoolDir` and
 * retried until stored (docs/decisions/gateway-durable-recording.md).
 */
import { ToolgraphError } from "../contract/errors.ts";
import type { Toolgraph } from "../library/toolgraph.ts";
import { DurableWriter } from "../store/durable-writer.ts";
import type { CatalogSync } from "./catalog-sync.ts";
import type { GatewayOptions } from "./gateway-options.ts";
import type { RecordedExecution } from "./recorded-execution.ts";
import { withoutRefusedSteps } from "./refused-steps.ts";
import type { RecordedCounts } from "./status-tool.ts";

/** How a failed write is retried: the database is away (retry), the item is refused (reject), else unknown. */
function classify(err: unknown): "retry" | "reject" | "unknown" {
  const code = err instanceof ToolgraphError ? err.code : undefined;
  if (code === "database-unreachable" || code === "database-locked" || code === "shutting-down") return "retry";
  if (code === "invalid-input") return "reject";
  return "unknown";
}

export class ExecutionRecording {
  private readonly writer: DurableWriter<RecordedExecution>;
  private readonly stored = { executions: 0, steps: 0, skippedSteps: 0 };

  constructor(
    private readonly api: Toolgraph,
    private readonly project: () => string,
    private readonly catalog: CatalogSync,
    options: GatewayOptions,
    log: (line: string) => void,
  ) {
    this.writer = new DurableWriter<RecordedExecution>({
      write: (e) => this.writeNow(e),
      classify,
      spoolDir: options.spoolDir,
      minBackoffMs: options.writeMinBackoffMs,
      maxBackoffMs: options.writeMaxBackoffMs,
      log: (l) => log(`toolgraph gateway: ${l}`),
    });
  }

  get counts(): RecordedCounts {
    const w = this.writer.status();
    return {
      executions: this.stored.executions,
      steps: this.stored.steps,
      failedWrites: w.failedAttempts,
      backlog: w.backlog,
      spooled: w.spooled,
      retrying: w.retrying,
      rejected: w.rejected,
      dropped: w.dropped,
      skippedSteps: this.stored.skippedSteps,
    };
  }

  /** Hands one closed execution to the durable writer (after the answers; written behind the catalog syncs). */
  submit(execution: RecordedExecution): void {
    const kept = withoutRefusedSteps(execution, (tool) => this.catalog.usableTool(tool));
    this.stored.skippedSteps += execution.steps.length - (kept?.steps.length ?? 0);
    if (kept) this.writer.submit(kept);
  }

  private async writeNow(execution: RecordedExecution): Promise<void> {
    await this.catalog.done();
    await this.api.recordExecution(execution, { project: this.project(), autoRegister: true });
    this.stored.executions++;
    this.stored.steps += execution.steps.length;
  }

  /** Starts writing what an earlier run spooled. */
  resume(): void {
    this.writer.resume();
  }

  drained(): Promise<void> {
    return this.writer.drained();
  }

  close(graceMs: number): Promise<void> {
    return this.writer.close(graceMs);
  }
}
