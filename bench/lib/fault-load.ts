/**
 * A bounded HTTP load with faults injected mid-way, shared by the fault-injection test and
 * bench/fault-injection.ts. `clients` workers loop until `durationMs`: each records an execution with a
 * unique id (POST /v1/executions) and then searches (POST /v1/search). Every answer is kept with its
 * status, error code and Retry-After header, so the caller can check what was acknowledged against what
 * the database holds.
 */
import { performance } from "node:perf_hooks";

export const FAULT_TOOLS = ["fetch_page", "parse_html", "extract_links", "summarize", "translate"] as const;

/** The catalog the load runs on. */
export function faultCatalog() {
  return {
    tools: FAULT_TOOLS.map((id) => ({ id, description: `${id.replace("_", " ")} tool`, tags: ["web"] })),
    capabilities: [],
  };
}

/** The deterministic execution number `n` of worker `w`: two or three steps. */
export function faultExecution(w: number, n: number, startedAt: string) {
  const a = FAULT_TOOLS[(w + n) % FAULT_TOOLS.length]!;
  const b = FAULT_TOOLS[(w + 2 * n + 1) % FAULT_TOOLS.length]!;
  const c = FAULT_TOOLS[(w + 3 * n + 2) % FAULT_TOOLS.length]!;
  const steps = n % 2 === 0 ? [{ tool: a }, { tool: b }] : [{ tool: a }, { tool: b }, { tool: c }];
  return {
    id: `w${w}-n${n}`,
    intent: `fetch and ${b.replace("_", " ")} page ${n % 7}`,
    startedAt,
    success: true,
    steps,
  };
}

export interface LoadRecord {
  kind: "record" | "search";
  /** Execution id (records only). */
  id?: string;
  /** Steps of the execution (records only). */
  steps?: number;
  /** ms since the load started, when the request was sent and when it ended. */
  sentAt: number;
  doneAt: number;
  /** HTTP status; 0 = no answer (connection refused/reset, timeout). */
  status: number;
  code?: string | undefined;
  retryAfter?: string | null;
}

export interface Fault {
  /** ms after the start of the load. */
  atMs: number;
  name: string;
  run: () => Promise<unknown>;
}

export interface FaultLoadResult {
  records: LoadRecord[];
  faults: { name: string; startedAt: number; endedAt: number; error?: string }[];
  durationMs: number;
}

export interface FaultLoadOptions {
  baseUrl: string;
  headers?: Record<string, string>;
  clients: number;
  durationMs: number;
  faults: Fault[];
  /** The load also runs at least this long after the last fault has ended (ms). Default 3 000. */
  tailMs?: number;
  /** Per-request timeout (ms). Default 10 000. */
  requestTimeoutMs?: number;
  startedAt?: string;
}

export async function runFaultLoad(o: FaultLoadOptions): Promise<FaultLoadResult> {
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const records: LoadRecord[] = [];
  const headers = { "content-type": "application/json", ...o.headers };
  const timeout = o.requestTimeoutMs ?? 10_000;
  const startedAt = o.startedAt ?? "2026-11-01T12:00:00Z";

  async function call(path: string, body: unknown): Promise<Pick<LoadRecord, "status" | "code" | "retryAfter">> {
    try {
      const res = await fetch(o.baseUrl + path, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeout),
      });
      const text = await res.text();
      let code: string | undefined;
      try {
        code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
      } catch {
        code = undefined;
      }
      return { status: res.status, code, retryAfter: res.headers.get("retry-after") };
    } catch (err) {
      return { status: 0, code: (err as Error).name };
    }
  }

  const faults: FaultLoadResult["faults"] = [];
  let faultsDoneAt = o.faults.length === 0 ? 0 : Number.POSITIVE_INFINITY;
  const tail = o.tailMs ?? 3_000;
  const faultRuns = o.faults.map(async (f) => {
    const wait = f.atMs - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const startedAt = now();
    try {
      await f.run();
      faults.push({ name: f.name, startedAt, endedAt: now() });
    } catch (err) {
      faults.push({ name: f.name, startedAt, endedAt: now(), error: (err as Error).message });
    }
  });

  void Promise.all(faultRuns).then(() => {
    faultsDoneAt = now();
  });
  const running = () => now() < o.durationMs || now() < faultsDoneAt + tail;
  const workers = Array.from({ length: o.clients }, async (_, w) => {
    for (let n = 0; running(); n++) {
      const ex = faultExecution(w, n, startedAt);
      const sent = now();
      const r = await call("/v1/executions", ex);
      records.push({ kind: "record", id: ex.id, steps: ex.steps.length, sentAt: sent, doneAt: now(), ...r });
      const sent2 = now();
      const s = await call("/v1/search", { intent: ex.intent, limit: 3 });
      records.push({ kind: "search", sentAt: sent2, doneAt: now(), ...s });
      // A refused connection answers at once: do not spin.
      if (r.status === 0 || s.status === 0 || r.status === 503) await new Promise((res) => setTimeout(res, 20));
    }
  });
  await Promise.all([...workers, ...faultRuns]);
  return { records, faults, durationMs: now() };
}

export interface FaultSummary {
  requests: number;
  byStatus: Record<string, number>;
  byCode: Record<string, number>;
  /** Answers that were neither 2xx nor 503 database-unreachable (must be 0). */
  unexpected: number;
  /** 503 answers without a Retry-After header (must be 0). */
  unavailableWithoutRetryAfter: number;
  /** Requests answered with a non-2xx status between the first fault and the recovery. */
  errorsDuringOutage: number;
  /** ms from the end of the last fault to the first 2xx answer sent after it. */
  recoveryMs: number | null;
  acknowledged: string[];
  unacknowledged: string[];
}

export function summarize(r: FaultLoadResult): FaultSummary {
  const byStatus: Record<string, number> = {};
  const byCode: Record<string, number> = {};
  let unexpected = 0;
  let withoutRetry = 0;
  for (const x of r.records) {
    byStatus[x.status] = (byStatus[x.status] ?? 0) + 1;
    if (x.code) byCode[x.code] = (byCode[x.code] ?? 0) + 1;
    const ok = x.status >= 200 && x.status < 300;
    if (!ok && !(x.status === 503 && x.code === "database-unreachable")) unexpected++;
    if (x.status === 503 && !x.retryAfter) withoutRetry++;
  }
  const firstFault = Math.min(...r.faults.map((f) => f.startedAt));
  const lastFaultEnd = Math.max(...r.faults.map((f) => f.endedAt));
  const after = r.records
    .filter((x) => x.sentAt >= lastFaultEnd && x.status >= 200 && x.status < 300)
    .sort((a, b) => a.doneAt - b.doneAt);
  const recoveryMs = after.length > 0 ? after[0]!.doneAt - lastFaultEnd : null;
  const recoveredAt = recoveryMs === null ? Number.POSITIVE_INFINITY : lastFaultEnd + recoveryMs;
  const errorsDuringOutage = r.records.filter(
    (x) => x.doneAt >= firstFault && x.sentAt <= recoveredAt && !(x.status >= 200 && x.status < 300),
  ).length;
  const recs = r.records.filter((x) => x.kind === "record");
  return {
    requests: r.records.length,
    byStatus,
    byCode,
    unexpected,
    unavailableWithoutRetryAfter: withoutRetry,
    errorsDuringOutage,
    recoveryMs,
    acknowledged: recs.filter((x) => x.status >= 200 && x.status < 300).map((x) => x.id!),
    unacknowledged: recs.filter((x) => !(x.status >= 200 && x.status < 300)).map((x) => x.id!),
  };
}
