/**
 * Every recommendation passes one AdaptiveThresholdManager (docs/decisions/gate-thresholds.md).
 *
 * prepare(): the user's context (persisted history, cached), context detection over the request text
 * and the workflow so far (operation, domain, complexity, urgency, health), the environment
 * (production × critical), the learned per-context offset, and the intent memory's similar-past
 * success → one ThresholdAdjustment. gate(score): accepted (≥ 0.85, high confidence) / accepted with
 * caution (≥ threshold) / abstained with the gap and the project's fallback tools.
 *
 * Requests without a user get no user rule (they are neither new nor trusted): the anonymous context
 * below triggers none of the three user signals. Similar-task success (rule similar_task_success) is a
 * property of the task: the intent memory's similar past executions — every user's for an anonymous
 * request, the user's own when a user is given (recallMemory's `user` filter).
 */

import type { Kysely } from "kysely";
import type { ThresholdAdjustment } from "../../algorithms/thresholds/adjust-threshold.ts";
import { type Calibration, calibrate } from "../../algorithms/thresholds/calibration.ts";
import { contextKeyOf, contextKeyString, type GateOutcome } from "../../algorithms/thresholds/context-learning.ts";
import type { DetectedContext, WorkflowContext } from "../../algorithms/thresholds/detector-chain.ts";
import { toTaskContext } from "../../algorithms/thresholds/detector-chain.ts";
import type { GateDecision } from "../../algorithms/thresholds/gate-decision.ts";
import type { ReportAlternative } from "../../algorithms/thresholds/reasoning-report.ts";
import type {
  EnvironmentContext,
  ResourceUsage,
  SimilarPastSuccess,
  TaskContext,
  UserContext,
} from "../../algorithms/thresholds/types.ts";
import type { UserSignalInput } from "../../algorithms/thresholds/user-history-signals.ts";
import type { Database } from "../store/schema.ts";
import { DbContextThresholdStore, DbUserHistoryStore } from "../store/user-state.ts";
import { AdaptiveThresholdManager } from "./adaptive-threshold-manager.ts";
import { ContextDetectorChain } from "./context-detector-chain.ts";
import { ContextThresholdLearner } from "./context-threshold-learner.ts";
import { UserHistoryTracker } from "./user-history-tracker.ts";

/** Detections kept by Gatekeeper.detectOnce. */
export const DETECTION_MEMO = 256;
/** Prepared gates kept per detection (requests without a user or workflow id; see Gatekeeper.prepareAnonymous). */
export const PREPARED_MEMO = 8;

export const ANONYMOUS_USER: UserSignalInput = { reputation: 0.5, successRate: 0.7, taskCount: 5, recentErrors: 0 };

export interface GateRequestContext {
  project: string;
  /** The user the answer is for; their history moves the threshold. */
  user?: string | undefined;
  /** The request text (intent) the detectors read; "" when there is none. */
  text: string;
  /** The workflow so far: steps with success, replans. */
  workflow?: WorkflowContext | undefined;
  /** Environment: production and critical task (both → the critical_production rule, threshold 0.80). */
  environment?: { production?: boolean | undefined; critical?: boolean | undefined } | undefined;
  /** Explicit urgency; otherwise detected from the text. */
  urgency?: "low" | "medium" | "high" | undefined;
  /** Success of similar past executions (intent memory). */
  similarPastSuccess?: SimilarPastSuccess | undefined;
  /** Workflow id for the context timeline. */
  workflowId?: string | undefined;
  /** The running workflow as the caller described it (request `workflow`): replaces `workflow`/`workflowId`. */
  requestWorkflow?:
    | {
        id?: string | undefined;
        steps: { tool: string; success?: boolean | undefined }[];
        replans?: number | undefined;
      }
    | undefined;
}

export interface PreparedGate {
  project: string;
  adjustment: ThresholdAdjustment;
  detected: DetectedContext;
  user: UserContext | undefined;
  contextKey: string;
  /** The workflow's detection timeline (oldest first) when the request named a workflow id. */
  workflowId?: string | undefined;
  timeline?: { at: number; taskHealth: string; userStates: string[]; workflowSuccessRate: number | null }[] | undefined;
  /**
   * What every answer gated by it shows (summarizeAdjustment, summarizeHealth), built once with the gate and
   * frozen: answers given with the same prepared gate share these objects.
   */
  threshold: Readonly<ReturnType<typeof summarizeAdjustment>>;
  health: Readonly<ReturnType<typeof summarizeHealth>>;
}

/** A prepared gate with the threshold and health its answers show, built now and frozen (deeply). */
export function preparedGate(gate: Omit<PreparedGate, "threshold" | "health">): PreparedGate {
  return {
    ...gate,
    threshold: deepFreeze(summarizeAdjustment(gate.adjustment)),
    health: deepFreeze(summarizeHealth(gate)),
  };
}

/** Freezes a JSON-like value and everything in it; returns it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The context key a prepared gate shows: project/operation/domain. */
function contextKeyText(task: TaskContext): string {
  const key = contextKeyOf(task);
  return `${key.project}/${key.operation}/${key.domain}`;
}

/** The detected workflow health an answer shows (OnTrack / AtRisk / OffTrack, docs/decisions/gate-thresholds.md). */
export function summarizeHealth(p: Pick<PreparedGate, "detected" | "workflowId" | "timeline">) {
  const d = p.detected;
  return {
    taskHealth: d.taskHealth,
    atRisk: d.atRisk,
    offTrack: d.offTrack,
    userStates: [...d.userStates],
    workflowSuccessRate: d.workflowSuccessRate ?? null,
    consecutiveFailures: d.consecutiveFailures,
    complexity: d.complexity,
    ...(p.workflowId !== undefined ? { workflowId: p.workflowId, timeline: p.timeline ?? [] } : {}),
  };
}

/** The report flags of the detected health: AtRisk, OffTrack and user states such as frustrated. */
export function healthFlags(p: PreparedGate): string[] {
  const d = p.detected;
  return [...(d.atRisk ? ["AtRisk"] : []), ...(d.offTrack ? ["OffTrack"] : []), ...d.userStates];
}

export interface GatedItem {
  decision: GateDecision<string>["decision"];
  confidence: GateDecision<string>["confidence"];
  caution: boolean;
  threshold: number;
  gap?: number | undefined;
  probability?: number | undefined;
}

export function summarizeAdjustment(a: ThresholdAdjustment) {
  return {
    original: a.originalThreshold,
    adjusted: a.adjustedThreshold,
    delta: a.delta,
    appliedRules: [...a.appliedRules],
    /** Every rule whose signal fired, in selection order (the first applied). */
    matchedRules: a.matchedRules.map((r) => r.id),
    signals: { user: a.signals.user.reasoning, context: a.signals.context.reasoning },
    learnedOffset: a.learnedOffset,
    healthPenalty: a.healthPenalty,
    confidenceLevel: a.confidenceLevel,
    reasoning: a.reasoning,
  };
}

export interface GatekeeperOptions {
  now: () => number;
  /** Turns context detection off (zero cost). Default on. */
  detection?: boolean;
  /** Resource monitor on (reads the real process and system). Default on. */
  resources?: boolean;
}

export class Gatekeeper {
  readonly manager: AdaptiveThresholdManager;
  readonly tracker: UserHistoryTracker;
  readonly learner: ContextThresholdLearner;
  readonly detectors: ContextDetectorChain;
  readonly userStore: DbUserHistoryStore;
  private readonly calibrations = new Map<string, Calibration>();
  /** Detections of recent requests without a workflow id, least recently used first (detectOnce). */
  private readonly detections = new Map<string, DetectedContext>();
  /** Distinct detected values, by their JSON (canonicalDetection). */
  private readonly canonical = new Map<string, DetectedContext>();
  /** Prepared gates of requests without a user or workflow id per memoised detection, by their other inputs (prepareAnonymous). */
  private readonly prepared = new WeakMap<
    DetectedContext,
    Map<string, { gate: PreparedGate; resources: ResourceUsage | undefined; learned: number; freshUntil: number }>
  >();
  private readonly now: () => number;

  constructor(db: Kysely<Database>, options: GatekeeperOptions) {
    this.now = options.now;
    this.userStore = new DbUserHistoryStore(db);
    this.tracker = new UserHistoryTracker(this.userStore, { now: options.now });
    this.learner = new ContextThresholdLearner(new DbContextThresholdStore(db, contextKeyString), { now: options.now });
    this.detectors = new ContextDetectorChain({ now: options.now, enabled: options.detection ?? true });
    this.manager = new AdaptiveThresholdManager({
      now: options.now,
      learner: this.learner,
      ...(options.resources === false ? { resources: false as const } : {}),
    });
  }

  /**
   * Sets the calibration of one kind of answer ("search", "next-step", …) for a project: a monotone map
   * score → P(success) fitted on the project's own traces (jobs/fit-calibration.ts). The gate then decides on
   * the calibrated probability, and the high-confidence tier also needs P ≥ 0.80.
   */
  setCalibration(project: string, kind: string, calibration: Calibration | undefined): void {
    const key = `${project}\u0000${kind}`;
    if (calibration && calibration.blocks.length > 0) this.calibrations.set(key, calibration);
    else this.calibrations.delete(key);
  }

  calibration(project: string, kind: string): Calibration | undefined {
    return this.calibrations.get(`${project}\u0000${kind}`);
  }

  async prepare(req: GateRequestContext): Promise<PreparedGate> {
    const rw = req.requestWorkflow;
    const workflow = rw
      ? { steps: rw.steps.map((x) => ({ tool: x.tool, success: x.success ?? true })), replans: rw.replans ?? 0 }
      : req.workflow;
    const workflowId = rw ? rw.id : req.workflowId;
    if (!req.user && workflowId === undefined) return this.prepareAnonymous(req, workflow);
    const user = req.user ? await this.tracker.getUserContext(req.project, req.user) : undefined;
    const detected =
      workflowId === undefined
        ? this.detectOnce(req.text, workflow)
        : this.detectors.detect({ text: req.text, workflow }, workflowId);
    const timeline =
      workflowId === undefined
        ? undefined
        : this.detectors.timeline(workflowId).map((e) => ({
            at: e.at,
            taskHealth: e.detected.taskHealth,
            userStates: [...e.detected.userStates],
            workflowSuccessRate: e.detected.workflowSuccessRate ?? null,
          }));
    const { task, env } = this.taskOf(req, detected);
    await this.manager.warm(task);
    const adjustment = this.manager.adjustThreshold(user ?? ANONYMOUS_USER, env, task);
    return preparedGate({
      project: req.project,
      adjustment,
      detected,
      user,
      contextKey: contextKeyText(task),
      workflowId,
      timeline,
    });
  }

  /**
   * The gate of a request without a user and without a workflow id: a pure function of its (memoised)
   * detection, the project, the environment, the explicit urgency, the similar-past success, the resource
   * sample (re-read at most once per second) and the learned offset of its context. The last PREPARED_MEMO of
   * each detection are kept and answer while the resource sample is the same object and the learner has
   * neither loaded nor learned anything since and the context's offset is fresh (a new sample, a reload or a
   * learned step prepares again), so a repeated request skips the signal extractors, the rule table and the
   * learner's await.
   */
  private async prepareAnonymous(
    req: GateRequestContext,
    workflow: WorkflowContext | undefined,
  ): Promise<PreparedGate> {
    const detected = this.detectOnce(req.text, workflow);
    const key = this.memoKey(req, detected);
    const resources = this.manager.resources();
    const hit = this.memoHit(detected, key, resources);
    if (hit) return hit;
    const { task, env: environment } = this.taskOf(req, detected);
    await this.manager.warm(task);
    const learned = this.learner.version;
    const adjustment = this.manager.adjustThreshold(ANONYMOUS_USER, environment, task, resources);
    const gate = preparedGate({
      project: req.project,
      adjustment,
      detected,
      user: undefined,
      contextKey: contextKeyText(task),
      workflowId: undefined,
      timeline: undefined,
    });
    let memo = this.prepared.get(detected);
    if (!memo) {
      memo = new Map();
      this.prepared.set(detected, memo);
    }
    if (memo.size >= PREPARED_MEMO && !memo.has(key)) memo.delete(memo.keys().next().value!);
    memo.set(key, { gate, resources, learned, freshUntil: this.learner.freshUntil(contextKeyOf(task)) });
    return gate;
  }

  /**
   * The prepared gate `prepare` would answer from its memo, synchronously, or undefined (a named user, a
   * workflow, a first request or a stale entry: await `prepare` then). Same memo, same conditions.
   */
  preparedNow(req: GateRequestContext): PreparedGate | undefined {
    if (req.user || req.requestWorkflow || req.workflowId !== undefined) return undefined;
    const detected = this.detectOnce(req.text, req.workflow);
    return this.memoHit(detected, this.memoKey(req, detected), this.manager.resources());
  }

  /** The memoised gate of a detection and key while it holds: same resource sample, learner unchanged, offset fresh. */
  private memoHit(
    detected: DetectedContext,
    key: string,
    resources: ResourceUsage | undefined,
  ): PreparedGate | undefined {
    const hit = this.prepared.get(detected)?.get(key);
    return hit !== undefined &&
      hit.resources === resources &&
      hit.learned === this.learner.version &&
      this.now() < hit.freshUntil
      ? hit.gate
      : undefined;
  }

  /** The memo key of an anonymous request besides its detection: project, environment, urgency, similar-past success. */
  private memoKey(req: GateRequestContext, detected: DetectedContext): string {
    const sim = req.similarPastSuccess;
    const env = req.environment;
    return `${req.project}\u0000${env?.production ? 1 : 0}${(env?.critical ?? detected.critical) ? 1 : 0}\u0000${req.urgency ?? ""}\u0000${sim ? `${sim.rate}/${sim.executions}/${sim.floor}/${sim.best}` : ""}`;
  }

  /** The task and environment the threshold rules read: the detection with the request's explicit fields. */
  private taskOf(req: GateRequestContext, detected: DetectedContext): { task: TaskContext; env: EnvironmentContext } {
    const base = toTaskContext(detected, req.project);
    const task = { ...base, urgency: req.urgency ?? base.urgency, similarPastSuccess: req.similarPastSuccess };
    const env: EnvironmentContext = {
      isProduction: req.environment?.production ?? false,
      isCriticalTask: req.environment?.critical ?? detected.critical,
    };
    return { task, env };
  }

  /**
   * Context detection of a request without a workflow id: a pure function of the text and the workflow
   * steps, so the last DETECTION_MEMO answers are kept (a DAG request, a repeated context or intent then skips
   * the detectors; an id's timeline must record every call, so those always run).
   */
  private detectOnce(text: string, workflow: WorkflowContext | undefined): DetectedContext {
    // The detectors' own key when each has one (what they read: e.g. how many distinct tools, not which), else
    // the whole input; both after the chain's generation, so a changed chain never answers from the memo.
    const own = this.detectors.inputKey({ text, workflow });
    let key: string;
    if (own !== undefined) key = `${this.detectors.generation}k${own}`;
    else {
      key = `${this.detectors.generation}f${text}`;
      if (workflow) {
        key += `\u0000${workflow.replans ?? 0}`;
        for (const st of workflow.steps)
          key += `\u0000${st.success ? "+" : "-"}${st.tool === undefined ? "" : `:${st.tool}`}`;
        if (workflow.tools) key += `\u0001${workflow.tools.join("\u0000")}`;
        if (workflow.domains) key += `\u0002${workflow.domains.join("\u0000")}`;
      }
    }
    const hit = this.detections.get(key);
    if (hit) {
      this.detections.delete(key);
      this.detections.set(key, hit);
      return hit;
    }
    const detected = this.canonicalDetection(this.detectors.detect({ text, workflow }));
    this.detections.set(key, detected);
    if (this.detections.size > DETECTION_MEMO) this.detections.delete(this.detections.keys().next().value!);
    return detected;
  }

  /**
   * One object per detected value: requests whose detections are equal field by field (e.g. next-step contexts
   * of other tools but the same length and outcomes) share it, so adjustOnce's memo, keyed by the detection
   * object, answers them too. The last DETECTION_MEMO distinct values are kept.
   */
  private canonicalDetection(detected: DetectedContext): DetectedContext {
    const key = JSON.stringify(detected);
    const hit = this.canonical.get(key);
    if (hit) return hit;
    this.canonical.set(key, detected);
    if (this.canonical.size > DETECTION_MEMO) this.canonical.delete(this.canonical.keys().next().value!);
    return detected;
  }

  gate(kind: string, score: number, prepared: PreparedGate, fallbacks: readonly string[] = []): GateDecision<string> {
    return this.manager.gate(this.gatedScore(kind, score, prepared), prepared.adjustment, { fallbacks });
  }

  /**
   * The score the gate compares, clamped to [0, 1]: with a calibration of this kind of answer, P(success)
   * itself (so "high confidence", ≥ 0.85, means an estimated success rate of at least 85 %).
   */
  private gatedScore(kind: string, score: number, prepared: PreparedGate): number {
    const cal = this.calibrations.get(`${prepared.project}\u0000${kind}`);
    const clamped = Math.max(0, Math.min(1, score));
    return cal ? calibrate(cal, clamped) : clamped;
  }

  /**
   * An answer item's gate: the decision `gate` gives (calibrated the same way), as the item shows it, without
   * building the decision's reasoning sentence or fallbacks (gatedItem(gate(…)) equals it field by field).
   */
  gateItem(kind: string, score: number, prepared: PreparedGate): GatedItem {
    return this.manager.tier(this.gatedScore(kind, score, prepared), prepared.adjustment);
  }

  report(
    chosen: { id: string; label?: string },
    decision: GateDecision<string>,
    prepared: PreparedGate,
    scoreBreakdown: Record<string, number>,
    alternatives: ReportAlternative[],
    flags: string[] = [],
    mixingWeights?: Record<string, number>,
  ) {
    const all = [...flags, ...healthFlags(prepared).filter((f) => !flags.includes(f))];
    return this.manager.report({
      chosen,
      decision,
      adjustment: prepared.adjustment,
      scoreBreakdown,
      mixingWeights,
      alternatives,
      flags: all,
    });
  }

  /** Feedback: an accepted answer that failed, or an abstention the user followed, moves the context's threshold. */
  async recordOutcome(
    project: string,
    operation: string | undefined,
    domain: string | undefined,
    outcome: GateOutcome,
  ) {
    return this.learner.recordOutcome(contextKeyOf({ project, operationType: operation, domain }), outcome);
  }
}

export function gatedItem(d: GateDecision<string>): GatedItem {
  // One literal per case (no spreads: every gated answer passes here), fields in the same order.
  const { decision, confidence, caution, threshold, gap, probability } = d;
  if (gap === undefined) {
    return probability === undefined
      ? { decision, confidence, caution, threshold }
      : { decision, confidence, caution, threshold, probability };
  }
  return probability === undefined
    ? { decision, confidence, caution, threshold, gap }
    : { decision, confidence, caution, threshold, gap, probability };
}

/**
 * The tail every gated answer shares: the ids accepted by the gate, whether the whole answer abstained
 * (then why, and the project's fallback tools), and the threshold adjustment with its reasoning.
 */
export function gatedSummary<T extends { gate: { decision: string } }>(
  items: readonly T[],
  idOf: (item: T) => string,
  prepared: PreparedGate,
  fallbacks: readonly string[],
  why: { empty: string; belowThreshold?: string },
): {
  accepted: string[];
  abstained: boolean;
  reason?: string;
  fallbacks?: string[];
  threshold: PreparedGate["threshold"];
  health: PreparedGate["health"];
} {
  const accepted: string[] = [];
  for (const x of items) if (x.gate.decision !== "abstained") accepted.push(idOf(x));
  // One literal per case (fields in the same order); the reason is spelled only when the answer abstains.
  if (accepted.length > 0)
    return { accepted, abstained: false, threshold: prepared.threshold, health: prepared.health };
  const reason =
    items.length === 0
      ? why.empty
      : (why.belowThreshold ?? `nothing reached the threshold ${prepared.adjustment.adjustedThreshold.toFixed(2)}`);
  return {
    accepted,
    abstained: true,
    reason,
    fallbacks: [...fallbacks],
    threshold: prepared.threshold,
    health: prepared.health,
  };
}
