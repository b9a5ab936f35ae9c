/**
 * Detector chain (layered detection: a fast rule-based layer first, custom detectors after): detectors share one
 * interface and run in order over the same request; each returns the fields it infers, which are merged over
 * the partial context so far (later detectors override the fields they return, undefined ones are ignored; `userStates` and `detectedBy` are
 * unions), and the chain appends each detector's name to `detectedBy`. Missing fields are filled from
 * NEUTRAL_CONTEXT (medium urgency, complexity 0.5, OnTrack). A disabled chain returns NEUTRAL_CONTEXT itself,
 * a constant: zero cost (detection is opt-in).
 *
 * Contexts of a workflow form a timeline (never overwritten): `appendToTimeline` returns a new array
 * keeping the last `maxLength` entries.
 */

import { ThresholdError } from "./errors.ts";
import type { TaskContext, Urgency } from "./types.ts";

const MODULE = "thresholds/detector-chain";

export type TaskHealth = "OnTrack" | "AtRisk" | "OffTrack";

export interface WorkflowStep {
  readonly tool?: string | undefined;
  readonly success: boolean;
}

/** What the workflow has done so far (raw runtime facts, not inferences). */
export interface WorkflowContext {
  /** Steps executed so far, in order. */
  readonly steps: readonly WorkflowStep[];
  /** How many times the plan was redone (> 2 → AtRisk, docs/decisions/gate-thresholds.md). */
  readonly replans: number;
  /** Tools involved (in addition to the steps' tools). */
  readonly tools?: readonly string[] | undefined;
  /** Domains involved, as the project names them. */
  readonly domains?: readonly string[] | undefined;
}

export interface DetectionInput {
  readonly text: string;
  readonly workflow?: WorkflowContext | undefined;
}

/** Inferred context (task health, user states, and the task fields the gate's rules read). */
export interface DetectedContext {
  /** Primary operation type (analysis, creation, implementation, modification, debugging, iterative, ...). */
  readonly operationType: string | undefined;
  /** Every operation type whose verbs appeared, strongest first. */
  readonly operationTypes: readonly string[];
  readonly domain: string | undefined;
  readonly domains: readonly string[];
  /** In [0, 1]. */
  readonly complexity: number;
  readonly urgency: Urgency;
  readonly urgentKeywords: readonly string[];
  /** The request names a critical situation (outage, incident, critical...). */
  readonly critical: boolean;
  readonly taskHealth: TaskHealth;
  /** replans > 2. */
  readonly atRisk: boolean;
  /** Workflow success rate < 0.5. */
  readonly offTrack: boolean;
  /** e.g. "frustrated" (more than 3 consecutive failures). */
  readonly userStates: readonly string[];
  /** Successes / steps so far; undefined before the first step. */
  readonly workflowSuccessRate: number | undefined;
  readonly consecutiveFailures: number;
  /** Names of the detectors that contributed, in order. */
  readonly detectedBy: readonly string[];
}

export interface ContextDetector {
  readonly name: string;
  /** Pure: returns the fields this detector infers, given the request and the context so far. */
  detect(input: DetectionInput, partial: Partial<DetectedContext>): Partial<DetectedContext>;
  /**
   * Optional: a string that is equal for two inputs whenever `detect` gives equal output for them (what the
   * detector reads of the input, e.g. the number of distinct tools rather than their names). Callers may
   * reuse a detection under it; without it they key on the whole input.
   */
  inputKey?(input: DetectionInput): string;
}

export const NEUTRAL_CONTEXT: DetectedContext = Object.freeze({
  operationType: undefined,
  operationTypes: Object.freeze([]) as readonly string[],
  domain: undefined,
  domains: Object.freeze([]) as readonly string[],
  complexity: 0.5,
  urgency: "medium",
  urgentKeywords: Object.freeze([]) as readonly string[],
  critical: false,
  taskHealth: "OnTrack",
  atRisk: false,
  offTrack: false,
  userStates: Object.freeze([]) as readonly string[],
  workflowSuccessRate: undefined,
  consecutiveFailures: 0,
  detectedBy: Object.freeze([]) as readonly string[],
});

function union(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] {
  const out = [...(a ?? [])];
  for (const x of b ?? []) if (!out.includes(x)) out.push(x);
  return out;
}

/** Runs the detectors in order and returns the complete merged context. */
export function runDetectorChain(detectors: readonly ContextDetector[], input: DetectionInput): DetectedContext {
  let partial: Partial<DetectedContext> = {};
  for (const d of detectors) {
    const out = d.detect(input, partial);
    const defined: Record<string, unknown> = {};
    for (const k of Object.keys(out)) {
      const v = (out as Record<string, unknown>)[k];
      if (v !== undefined) defined[k] = v;
    }
    partial = {
      ...partial,
      ...(defined as Partial<DetectedContext>),
      userStates: union(partial.userStates, out.userStates),
      detectedBy: union(union(partial.detectedBy, out.detectedBy), [d.name]),
    };
  }
  return { ...NEUTRAL_CONTEXT, ...partial };
}

/** New timeline with `entry` appended, keeping the last `maxLength` entries (the input is not changed). */
export function appendToTimeline<T>(timeline: readonly T[], entry: T, maxLength: number): T[] {
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new ThresholdError(MODULE, "bad-length", `timeline maxLength must be a positive integer, got ${maxLength}`);
  }
  const start = Math.max(0, timeline.length + 1 - maxLength);
  const out = timeline.slice(start);
  out.push(entry);
  return out;
}

/** The task context the threshold adjustment reads, from a detected context. */
export function toTaskContext(detected: DetectedContext, project?: string): TaskContext {
  return {
    urgency: detected.urgency,
    hasUrgencyKeywords: detected.urgentKeywords.length > 0,
    complexity: detected.complexity,
    domain: detected.domain,
    operationType: detected.operationType,
    project,
    atRisk: detected.atRisk,
    offTrack: detected.offTrack,
  };
}
