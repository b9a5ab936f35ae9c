/**
 * Context detection service (algorithms/thresholds/detector-chain.ts): a chain of detectors (the rule-based one first
 * by default; more are added with `registerDetector`), a bounded timeline of detected contexts per workflow, and an
 * on/off switch. Disabled, `detect` returns the constant NEUTRAL_CONTEXT without running anything or touching the
 * timeline (detection is opt-in and costs nothing when off). Timelines keep the last `timelineLength` entries of the
 * last `maxWorkflows` workflows (least recently detected workflow dropped first).
 */

import {
  createRuleBasedDetector,
  type RuleBasedDetectorOptions,
} from "../../algorithms/thresholds/context-detection.ts";
import {
  appendToTimeline,
  type ContextDetector,
  type DetectedContext,
  type DetectionInput,
  NEUTRAL_CONTEXT,
  runDetectorChain,
} from "../../algorithms/thresholds/detector-chain.ts";
import { ThresholdError } from "../../algorithms/thresholds/errors.ts";

const MODULE = "gate/context-detector-chain";

export interface ContextDetectorChainOptions {
  /** Run detection at all. Default true. */
  readonly enabled?: boolean;
  /** Options of the built-in rule-based detector (project-configured domains go here). */
  readonly ruleBased?: RuleBasedDetectorOptions;
  /** Replace the default chain ([rule-based]) entirely. */
  readonly detectors?: readonly ContextDetector[];
  /** Entries kept per workflow. Default 50. */
  readonly timelineLength?: number;
  /** Workflows whose timelines are kept. Default 1000. */
  readonly maxWorkflows?: number;
  /** Clock in ms for timeline entries. Default Date.now. */
  readonly now?: () => number;
}

export const DEFAULTS = { enabled: true, timelineLength: 50, maxWorkflows: 1000 } as const;

export interface TimelineEntry {
  readonly at: number;
  readonly detected: DetectedContext;
}

export class ContextDetectorChain {
  #enabled: boolean;
  #detectors: ContextDetector[];
  readonly #timelineLength: number;
  readonly #maxWorkflows: number;
  readonly #now: () => number;
  readonly #timelines = new Map<string, readonly TimelineEntry[]>();
  /** Bumped whenever what `detect` computes can change (a detector added or removed, detection switched). */
  #generation = 0;

  constructor(options?: ContextDetectorChainOptions) {
    this.#enabled = options?.enabled ?? DEFAULTS.enabled;
    this.#detectors = [...(options?.detectors ?? [createRuleBasedDetector(options?.ruleBased)])];
    this.#timelineLength = options?.timelineLength ?? DEFAULTS.timelineLength;
    this.#maxWorkflows = options?.maxWorkflows ?? DEFAULTS.maxWorkflows;
    this.#now = options?.now ?? Date.now;
    for (const [what, v] of [
      ["timelineLength", this.#timelineLength],
      ["maxWorkflows", this.#maxWorkflows],
    ] as const) {
      if (!Number.isInteger(v) || v < 1)
        throw new ThresholdError(MODULE, "bad-option", `${what} must be a positive integer, got ${v}`);
    }
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  setEnabled(enabled: boolean): void {
    if (enabled !== this.#enabled) this.#generation++;
    this.#enabled = enabled;
  }

  /** Changes whenever the chain changes (detectors, on/off): a detection kept under an older generation is stale. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * A key equal for two inputs whenever `detect` answers them equally: the detectors' own input keys (each
   * says what it reads) when every detector has one, else undefined (key on the whole input).
   */
  inputKey(input: DetectionInput): string | undefined {
    if (!this.#enabled) return "";
    let key = "";
    for (const d of this.#detectors) {
      if (d.inputKey === undefined) return undefined;
      key += `${d.inputKey(input)}\u0002`;
    }
    return key;
  }

  /** Names of the detectors in chain order. */
  get detectorNames(): readonly string[] {
    return this.#detectors.map((d) => d.name);
  }

  /** Appends a detector to the chain; a second detector with the same name is a misuse. */
  registerDetector(detector: ContextDetector): void {
    if (this.#detectors.some((d) => d.name === detector.name)) {
      throw new ThresholdError(MODULE, "duplicate-detector", `a detector named ${detector.name} is already registered`);
    }
    this.#detectors.push(detector);
    this.#generation++;
  }

  /** Removes the named detector; returns whether it was there. */
  unregisterDetector(name: string): boolean {
    const before = this.#detectors.length;
    this.#detectors = this.#detectors.filter((d) => d.name !== name);
    if (this.#detectors.length !== before) this.#generation++;
    return this.#detectors.length !== before;
  }

  /** Runs the chain; with a workflowId the result is appended to that workflow's timeline. */
  detect(input: DetectionInput, workflowId?: string): DetectedContext {
    if (!this.#enabled) return NEUTRAL_CONTEXT;
    const detected = runDetectorChain(this.#detectors, input);
    if (workflowId !== undefined) {
      const prev = this.#timelines.get(workflowId) ?? [];
      this.#timelines.delete(workflowId);
      this.#timelines.set(workflowId, appendToTimeline(prev, { at: this.#now(), detected }, this.#timelineLength));
      if (this.#timelines.size > this.#maxWorkflows) {
        const oldest = this.#timelines.keys().next().value;
        if (oldest !== undefined) this.#timelines.delete(oldest);
      }
    }
    return detected;
  }

  /** The workflow's timeline, oldest first (empty when unknown). */
  timeline(workflowId: string): readonly TimelineEntry[] {
    return this.#timelines.get(workflowId) ?? [];
  }

  /** The latest detected context of the workflow, or undefined. */
  latest(workflowId: string): DetectedContext | undefined {
    const t = this.#timelines.get(workflowId);
    return t === undefined ? undefined : t[t.length - 1]?.detected;
  }

  /** Forgets the workflow's timeline (e.g. when the workflow ends). */
  clearTimeline(workflowId: string): void {
    this.#timelines.delete(workflowId);
  }
}
