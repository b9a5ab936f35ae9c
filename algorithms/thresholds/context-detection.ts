/**
 * Rule-based context detection (the fast, rule-based first layer of the detector chain; thresholds and their
 * origin: docs/decisions/gate-thresholds.md): one deterministic detector that turns a request (text +
 * workflow so far) into
 *
 *   operation type  verbs per operation type (OPERATION_VERBS below), matched on a light stem
 *                   (creating/created/creates → creat); most verb hits wins; ties in the order
 *                   debugging, implementation, creation, analysis, modification, iterative
 *   domain          keywords per domain (DOMAIN_KEYWORDS) plus project-configured domains; hits in
 *                   the text + 1 for each workflow domain; most hits wins, ties in declaration order
 *   complexity      clamp01(0.5·s + 0.25·t + 0.25·d + k) with s = min(steps / 10, 1),
 *                   t = min(distinct tools / 5, 1), d = min(domains involved / 3, 1), k = +0.15 for a
 *                   complex indicator (system-wide, architecture, ...), −0.15 for a simple one (typo, single
 *                   file, ...), 0 for both or neither. Matches the intended bands: < 3 steps, ≤ 2 tools, 1 domain
 *                   stays below 0.3 (simple); > 10 steps with ≥ 4 tools exceeds 0.7 (complex).
 *   urgency         "high" on an urgent keyword (urgent, asap, immediately, critical, hotfix, now, ...),
 *                   "low" on a no-rush phrase, else "medium"
 *   critical        the text names a critical situation (critical, outage, incident, production down, ...)
 *   task health     replans > 2 → AtRisk; workflow success rate < 0.5 → OffTrack (OffTrack shown when both);
 *                   more than 3 consecutive failures at the end → user state "frustrated"
 *                   (docs/decisions/gate-thresholds.md, "Workflow health")
 */

import type {
  ContextDetector,
  DetectedContext,
  DetectionInput,
  TaskHealth,
  WorkflowContext,
} from "./detector-chain.ts";
import { ThresholdError } from "./errors.ts";
import { stripUndefined } from "./options.ts";
import type { Urgency } from "./types.ts";

const MODULE = "thresholds/context-detection";

export const OPERATION_VERBS: Readonly<Record<string, readonly string[]>> = {
  analysis: ["analyze", "analyse", "review", "explain", "understand", "investigate", "troubleshoot"],
  creation: ["create", "build", "implement", "generate", "design"],
  implementation: ["implement", "develop", "code", "construct", "realize"],
  modification: ["update", "refactor", "improve", "optimize", "fix"],
  debugging: ["debug", "fix", "troubleshoot", "resolve", "investigate"],
  iterative: ["improve", "refine", "enhance", "correct", "polish", "fix", "iterate", "loop"],
};

export const OPERATION_TIE_ORDER: readonly string[] = [
  "debugging",
  "implementation",
  "creation",
  "analysis",
  "modification",
  "iterative",
];

export const DOMAIN_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  frontend: ["UI", "component", "React", "Vue", "CSS", "responsive", "accessibility"],
  backend: ["API", "database", "server", "endpoint", "authentication", "performance"],
  infrastructure: ["deploy", "Docker", "CI/CD", "monitoring", "scaling", "configuration"],
  documentation: ["document", "README", "wiki", "guide", "manual", "instructions"],
  iterative: ["improve", "refine", "enhance", "correct", "polish", "fix", "iterate", "loop"],
};

export interface RuleBasedDetectorOptions {
  /** Extra or replacing domains (name → keywords), merged over DOMAIN_KEYWORDS. Default none. */
  readonly domains?: Readonly<Record<string, readonly string[]>>;
  /** Operation verbs. Default OPERATION_VERBS. */
  readonly operationVerbs?: Readonly<Record<string, readonly string[]>>;
  /** Words and phrases that make a request urgent. Default DEFAULTS.urgentKeywords. */
  readonly urgentKeywords?: readonly string[];
  /** Phrases that make a request low urgency. Default DEFAULTS.lowUrgencyKeywords. */
  readonly lowUrgencyKeywords?: readonly string[];
  /** Words and phrases naming a critical situation. Default DEFAULTS.criticalKeywords. */
  readonly criticalKeywords?: readonly string[];
  /** Default DEFAULTS.complexIndicators. */
  readonly complexIndicators?: readonly string[];
  /** Default DEFAULTS.simpleIndicators. */
  readonly simpleIndicators?: readonly string[];
  /** AtRisk when replans exceed this. Default 2. */
  readonly maxReplans?: number;
  /** "frustrated" when trailing consecutive failures exceed this. Default 3. */
  readonly maxConsecutiveFailures?: number;
  /** OffTrack when the workflow success rate is strictly below this. Default 0.5. */
  readonly minSuccessRate?: number;
  /** Detector name written to detectedBy. Default "RuleBasedDetector". */
  readonly name?: string;
}

export const DEFAULTS = {
  urgentKeywords: ["urgent", "asap", "immediately", "critical", "hotfix", "now", "emergency", "right away", "blocker"],
  lowUrgencyKeywords: ["no rush", "whenever", "low priority", "eventually", "when you have time"],
  criticalKeywords: ["critical", "outage", "incident", "production down", "data loss", "security breach", "sev1"],
  complexIndicators: [
    "system-wide",
    "architecture",
    "architectural",
    "distributed",
    "migration",
    "end-to-end",
    "across",
  ],
  simpleIndicators: ["typo", "single file", "simple", "quick", "rename", "small"],
  maxReplans: 2,
  maxConsecutiveFailures: 3,
  minSuccessRate: 0.5,
  name: "RuleBasedDetector",
} as const;

/** Light English stem: lower-case, drop -ing/-ed/-es/-s (not -ss), a final -e, and one doubled final consonant. */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length > 4 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 3 && w.endsWith("ed")) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("es")) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  const n = w.length;
  if (n > 3 && w[n - 1] === w[n - 2] && !"aeiousl".includes(w[n - 1]!)) w = w.slice(0, -1);
  return w;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Case-insensitive whole-word (or whole-phrase) matcher; tolerates a plural or -ed/-ing ending. */
export function phraseMatcher(phrase: string): RegExp {
  return new RegExp(`(?:^|[^a-z0-9])${escapeRegex(phrase.toLowerCase())}(?:s|es|d|ed|ing)?(?=$|[^a-z0-9])`);
}

/**
 * A phrase matcher with the lower-cased phrase itself: every match of `re` contains `literal`, so a text
 * without it is rejected by one substring search instead of a regex scan (most phrases are absent from most
 * requests; detection runs on every request).
 */
interface Matcher {
  readonly literal: string;
  readonly re: RegExp;
}

function matcher(phrase: string): Matcher {
  return { literal: phrase.toLowerCase(), re: phraseMatcher(phrase) };
}

function matches(m: Matcher, lower: string): boolean {
  return lower.includes(m.literal) && m.re.test(lower);
}

interface Compiled {
  readonly matchers: readonly { readonly name: string; readonly res: readonly Matcher[] }[];
}

function compile(groups: Readonly<Record<string, readonly string[]>>): Compiled {
  return {
    matchers: Object.entries(groups).map(([name, words]) => ({ name, res: words.map(matcher) })),
  };
}

function hits(res: readonly Matcher[], lower: string): number {
  let n = 0;
  for (const m of res) if (matches(m, lower)) n++;
  return n;
}

/** Operation verbs with their stems and tie order, computed once per detector. */
type CompiledVerbs = readonly { readonly name: string; readonly stems: readonly string[]; readonly order: number }[];

function compileVerbs(verbs: Readonly<Record<string, readonly string[]>>): CompiledVerbs {
  return Object.entries(verbs).map(([name, list]) => {
    const tie = OPERATION_TIE_ORDER.indexOf(name);
    return { name, stems: list.map(stem), order: tie === -1 ? OPERATION_TIE_ORDER.length : tie };
  });
}

function rankCompiled(text: string, verbs: CompiledVerbs): string[] {
  const stems = new Set((text.toLowerCase().match(/[a-z]+/g) ?? []).map(stem));
  const scored: { name: string; n: number; order: number }[] = [];
  for (const v of verbs) {
    let n = 0;
    for (const st of v.stems) if (stems.has(st)) n++;
    if (n > 0) scored.push({ name: v.name, n, order: v.order });
  }
  scored.sort((a, b) => b.n - a.n || a.order - b.order);
  return scored.map((s) => s.name);
}

/** Operation types ranked by distinct verb hits (stems of the text's words against stems of the verbs). */
export function rankOperationTypes(
  text: string,
  verbs: Readonly<Record<string, readonly string[]>> = OPERATION_VERBS,
): string[] {
  return rankCompiled(text, compileVerbs(verbs));
}

export interface ComplexityInput {
  readonly steps: number;
  readonly distinctTools: number;
  readonly domains: number;
  readonly complexIndicator: boolean;
  readonly simpleIndicator: boolean;
}

/** clamp01(0.5·min(steps/10,1) + 0.25·min(tools/5,1) + 0.25·min(domains/3,1) ± 0.15). */
export function estimateComplexity(x: ComplexityInput): number {
  const s = Math.min(x.steps / 10, 1);
  const t = Math.min(x.distinctTools / 5, 1);
  const d = Math.min(x.domains / 3, 1);
  const k = (x.complexIndicator ? 0.15 : 0) - (x.simpleIndicator ? 0.15 : 0);
  const c = 0.5 * s + 0.25 * t + 0.25 * d + k;
  return Math.round(Math.min(1, Math.max(0, c)) * 1e6) / 1e6;
}

export interface WorkflowHealth {
  readonly taskHealth: TaskHealth;
  readonly atRisk: boolean;
  readonly offTrack: boolean;
  readonly workflowSuccessRate: number | undefined;
  readonly consecutiveFailures: number;
  readonly userStates: readonly string[];
}

/** Workflow health: replans > 2 → AtRisk; success rate < 0.5 → OffTrack; > 3 trailing failures → frustrated. */
export function assessWorkflowHealth(
  workflow: WorkflowContext | undefined,
  options?: Pick<RuleBasedDetectorOptions, "maxReplans" | "maxConsecutiveFailures" | "minSuccessRate">,
): WorkflowHealth {
  if (workflow === undefined) {
    return {
      taskHealth: "OnTrack",
      atRisk: false,
      offTrack: false,
      workflowSuccessRate: undefined,
      consecutiveFailures: 0,
      userStates: [],
    };
  }
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  if (!Number.isInteger(workflow.replans) || workflow.replans < 0) {
    throw new ThresholdError(
      MODULE,
      "bad-replans",
      `workflow.replans must be a non-negative integer, got ${workflow.replans}`,
    );
  }
  const n = workflow.steps.length;
  let ok = 0;
  for (const s of workflow.steps) if (s.success) ok++;
  let trailing = 0;
  for (let i = n - 1; i >= 0 && !workflow.steps[i]!.success; i--) trailing++;
  const rate = n === 0 ? undefined : ok / n;
  const atRisk = workflow.replans > o.maxReplans;
  const offTrack = rate !== undefined && rate < o.minSuccessRate;
  return {
    taskHealth: offTrack ? "OffTrack" : atRisk ? "AtRisk" : "OnTrack",
    atRisk,
    offTrack,
    workflowSuccessRate: rate,
    consecutiveFailures: trailing,
    userStates: trailing > o.maxConsecutiveFailures ? ["frustrated"] : [],
  };
}

/** Builds the rule-based detector; patterns are compiled once here. */
export function createRuleBasedDetector(options?: RuleBasedDetectorOptions): ContextDetector {
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const verbs = compileVerbs(options?.operationVerbs ?? OPERATION_VERBS);
  const domains = compile({ ...DOMAIN_KEYWORDS, ...(options?.domains ?? {}) });
  const domainOrder = domains.matchers.map((m) => m.name);
  const urgent = o.urgentKeywords.map((w) => ({ w, m: matcher(w) }));
  const low = o.lowUrgencyKeywords.map(matcher);
  const critical = o.criticalKeywords.map(matcher);
  const complexRes = o.complexIndicators.map(matcher);
  const simpleRes = o.simpleIndicators.map(matcher);

  return {
    name: o.name,
    // What detect reads: the text, the replans, each step's outcome in order, the number of distinct tools
    // (steps' and listed) and the listed domains in order.
    inputKey(input: DetectionInput): string {
      const wf = input.workflow;
      if (wf === undefined) return `${input.text}\u0000-`;
      let outcomes = "";
      for (const s of wf.steps) outcomes += s.success ? "+" : "-";
      const tools = new Set<string>(wf.tools ?? []);
      for (const s of wf.steps) if (s.tool !== undefined) tools.add(s.tool);
      return `${input.text}\u0000${wf.replans}\u0000${outcomes}\u0000${tools.size}\u0000${(wf.domains ?? []).join("\u0001")}`;
    },
    detect(input: DetectionInput): Partial<DetectedContext> {
      const lower = input.text.toLowerCase();
      const wf = input.workflow;

      const operationTypes = rankCompiled(lower, verbs);

      const wfDomains = new Set(wf?.domains ?? []);
      const scored: { name: string; n: number; order: number }[] = [];
      for (const m of domains.matchers) {
        const n = hits(m.res, lower) + (wfDomains.has(m.name) ? 1 : 0);
        if (n > 0) scored.push({ name: m.name, n, order: domainOrder.indexOf(m.name) });
      }
      for (const d of wfDomains) {
        if (!domainOrder.includes(d)) scored.push({ name: d, n: 1, order: domainOrder.length });
      }
      scored.sort((a, b) => b.n - a.n || a.order - b.order);
      const domainList = scored.map((s) => s.name);

      const urgentKeywords = urgent.filter((u) => matches(u.m, lower)).map((u) => u.w);
      const urgency: Urgency = urgentKeywords.length > 0 ? "high" : hits(low, lower) > 0 ? "low" : "medium";

      const tools = new Set<string>(wf?.tools ?? []);
      for (const s of wf?.steps ?? []) if (s.tool !== undefined) tools.add(s.tool);
      const complexity = estimateComplexity({
        steps: wf?.steps.length ?? 0,
        distinctTools: tools.size,
        domains: domainList.length,
        complexIndicator: hits(complexRes, lower) > 0,
        simpleIndicator: hits(simpleRes, lower) > 0,
      });

      const health = assessWorkflowHealth(wf, o);
      return {
        operationType: operationTypes[0],
        operationTypes,
        domain: domainList[0],
        domains: domainList,
        complexity,
        urgency,
        urgentKeywords,
        critical: hits(critical, lower) > 0,
        ...health,
      };
    },
  };
}
