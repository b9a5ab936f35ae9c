/**
 * Reasoning report of a gated answer: chosen item, confidence
 * and level, score breakdown (name → value, from the algorithm that produced the score), key decision factors
 * with weights, alternatives with their scores and why they lost, flags, the threshold adjustment, and a risk
 * assessment. Built as JSON (`buildReasoningReport`) and rendered as English text in that order of sections
 * (`renderReasoningReport`).
 *
 * Risk cut-offs:
 *   complexity   complexity < 0.3 low, ≤ 0.7 medium, > 0.7 high (the simple/complex signal bounds)
 *   resource     u = max(memory, cpu): u < 0.60 low, u < 0.85 medium, u ≥ 0.85 high (green / yellow-orange /
 *                red zones); disk > 0.90 raises low to medium; no snapshot → "unknown"
 *   uncertainty  score ≥ 0.85 low, score ≥ threshold medium, below threshold high; an alternative within
 *                0.05 of the chosen score raises low to medium (an ambiguous choice)
 * Key factors, when not given, are the breakdown's non-negative values normalised to sum 1, top 3. Mixing
 * weights (α of the hybrid score) are listed in the breakdown but are not evidence: they never enter the
 * factor shares.
 */

import type { ThresholdAdjustment } from "./adjust-threshold.ts";
import type { GateDecision } from "./gate-decision.ts";
import { stripUndefined } from "./options.ts";
import type { ResourceUsage } from "./types.ts";

export type RiskLevel = "low" | "medium" | "high";

export interface ReportOptions {
  /** Title line. Default "Tool Selection Report". */
  readonly title?: string;
  /** Score gap to the best alternative that counts as ambiguous. Default 0.05. */
  readonly ambiguityMargin?: number;
  /** Number of key factors derived from the breakdown when none are given. Default 3. */
  readonly maxDerivedFactors?: number;
  /** Score of the high-confidence tier. Default 0.85. */
  readonly highConfidence?: number;
}

export const DEFAULTS = {
  title: "Tool Selection Report",
  ambiguityMargin: 0.05,
  maxDerivedFactors: 3,
  highConfidence: 0.85,
} as const;

export interface ReportAlternative {
  readonly id: string;
  readonly label?: string | undefined;
  readonly score: number;
  /** Why it lost; derived from the scores when absent. */
  readonly reason?: string | undefined;
}

export interface ReportInput {
  readonly chosen: { readonly id: string; readonly label?: string | undefined };
  readonly decision: Pick<GateDecision<unknown>, "decision" | "confidence" | "score" | "threshold" | "caution"> & {
    readonly gap?: number | undefined;
  };
  readonly adjustment: Pick<
    ThresholdAdjustment,
    | "originalThreshold"
    | "adjustedThreshold"
    | "delta"
    | "appliedRules"
    | "reasoning"
    | "confidenceLevel"
    | "complexity"
  > & { readonly resources?: ResourceUsage | undefined };
  /** Score breakdown from the producing algorithm, name → value (evidence: these make the key factors). */
  readonly scoreBreakdown?: Readonly<Record<string, number>> | undefined;
  /** Mixing weights (e.g. α), name → value: shown after the breakdown, never counted as a key factor. */
  readonly mixingWeights?: Readonly<Record<string, number>> | undefined;
  /** Key factors with weights in [0, 1]; derived from the breakdown when absent. */
  readonly keyFactors?: readonly { readonly name: string; readonly weight: number }[] | undefined;
  readonly alternatives?: readonly ReportAlternative[] | undefined;
  readonly flags?: readonly string[] | undefined;
}

export interface ReasoningReport {
  readonly title: string;
  readonly chosen: { readonly id: string; readonly label: string };
  readonly confidence: {
    readonly score: number;
    readonly level: "high" | "medium" | "low";
    readonly decision: GateDecision["decision"];
  };
  readonly scoreBreakdown: readonly { readonly name: string; readonly value: number }[];
  readonly keyFactors: readonly { readonly name: string; readonly weight: number }[];
  readonly alternatives: readonly {
    readonly id: string;
    readonly label: string;
    readonly score: number;
    readonly reason: string;
  }[];
  readonly flags: readonly string[];
  readonly threshold: {
    readonly original: number;
    readonly adjusted: number;
    readonly delta: number;
    readonly rules: readonly string[];
    readonly level: ThresholdAdjustment["confidenceLevel"];
    readonly reasoning: string;
  };
  readonly risk: {
    readonly complexity: RiskLevel;
    readonly resource: RiskLevel | "unknown";
    readonly uncertainty: RiskLevel;
  };
}

export function complexityRisk(complexity: number): RiskLevel {
  return complexity < 0.3 ? "low" : complexity <= 0.7 ? "medium" : "high";
}

export function resourceRisk(usage: ResourceUsage | undefined): RiskLevel | "unknown" {
  if (usage === undefined) return "unknown";
  const u = Math.max(usage.memory, usage.cpu);
  const level: RiskLevel = u < 0.6 ? "low" : u < 0.85 ? "medium" : "high";
  return level === "low" && usage.disk !== undefined && usage.disk > 0.9 ? "medium" : level;
}

export function uncertaintyRisk(
  score: number,
  threshold: number,
  bestAlternative: number | undefined,
  options?: Pick<ReportOptions, "ambiguityMargin" | "highConfidence">,
): RiskLevel {
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const level: RiskLevel = score >= o.highConfidence ? "low" : score >= threshold ? "medium" : "high";
  const ambiguous = bestAlternative !== undefined && score - bestAlternative < o.ambiguityMargin;
  return level === "low" && ambiguous ? "medium" : level;
}

const f2 = (x: number): string => x.toFixed(2);
const pct = (x: number): string => `${Math.round(x * 100)}%`;

export function buildReasoningReport(input: ReportInput, options?: ReportOptions): ReasoningReport {
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const { decision, adjustment } = input;
  const evidence = Object.entries(input.scoreBreakdown ?? {}).map(([name, value]) => ({ name, value }));
  const breakdown = [
    ...evidence,
    ...Object.entries(input.mixingWeights ?? {}).map(([name, value]) => ({ name, value })),
  ];
  let keyFactors = input.keyFactors?.map((f) => ({ name: f.name, weight: f.weight }));
  if (keyFactors === undefined) {
    const positive = evidence.filter((b) => Number.isFinite(b.value) && b.value > 0);
    const total = positive.reduce((s, b) => s + b.value, 0);
    keyFactors =
      total > 0
        ? positive
            .map((b) => ({ name: b.name, weight: b.value / total }))
            .sort((a, b) => b.weight - a.weight)
            .slice(0, o.maxDerivedFactors)
        : [];
  }
  const t = decision.threshold;
  const alternatives = (input.alternatives ?? []).map((a) => ({
    id: a.id,
    label: a.label ?? a.id,
    score: a.score,
    reason:
      a.reason ??
      (a.score < t
        ? `below threshold ${f2(t)}`
        : a.score <= decision.score
          ? `${f2(decision.score - a.score)} below the chosen score`
          : "not chosen"),
  }));
  const best = alternatives.length === 0 ? undefined : Math.max(...alternatives.map((a) => a.score));
  const flags = [...(input.flags ?? [])];
  if (decision.caution && !flags.includes("caution")) flags.push("caution");
  if (decision.decision === "abstained" && !flags.includes("abstained")) flags.push("abstained");
  return {
    title: o.title,
    chosen: { id: input.chosen.id, label: input.chosen.label ?? input.chosen.id },
    confidence: { score: decision.score, level: decision.confidence, decision: decision.decision },
    scoreBreakdown: breakdown,
    keyFactors,
    alternatives,
    flags,
    threshold: {
      original: adjustment.originalThreshold,
      adjusted: adjustment.adjustedThreshold,
      delta: adjustment.delta,
      rules: adjustment.appliedRules,
      level: adjustment.confidenceLevel,
      reasoning: adjustment.reasoning,
    },
    risk: {
      complexity: complexityRisk(adjustment.complexity),
      resource: resourceRisk(adjustment.resources),
      uncertainty: uncertaintyRisk(decision.score, t, best, o),
    },
  };
}

const DECISION_TEXT: Record<GateDecision["decision"], string> = {
  accepted: "accepted",
  "accepted-with-caution": "accepted with caution",
  abstained: "abstained",
};

/** English text: the report's sections in the order of the header. */
export function renderReasoningReport(r: ReasoningReport): string {
  const lines: string[] = [];
  lines.push(`🤖 **${r.title}**`, "");
  lines.push(`**Selected**: ${r.chosen.label}${r.chosen.label === r.chosen.id ? "" : ` (${r.chosen.id})`}`);
  lines.push(
    `**Confidence Score**: ${pct(r.confidence.score)} (${r.confidence.level}) — ${DECISION_TEXT[r.confidence.decision]}`,
  );
  lines.push("", "**Selection Reasoning**:");
  if (r.scoreBreakdown.length === 0) lines.push("└─ (no breakdown)");
  r.scoreBreakdown.forEach((b, i) => {
    lines.push(`${i === r.scoreBreakdown.length - 1 ? "└─" : "├─"} ${b.name} → Score: ${f2(b.value)}`);
  });
  lines.push("", "**Key Decision Factors**:");
  if (r.keyFactors.length === 0) lines.push("(none)");
  r.keyFactors.forEach((f, i) => {
    lines.push(`${i + 1}. ${f.name} — ${pct(f.weight)}`);
  });
  lines.push("", "**Alternatives Considered**:");
  if (r.alternatives.length === 0) lines.push("(none)");
  for (const a of r.alternatives) lines.push(`• ${a.label}: Confidence ${pct(a.score)} — ${a.reason}`);
  lines.push("", "**Auto-Activated Flags**:", r.flags.length === 0 ? "(none)" : r.flags.join(", "));
  lines.push("", "**Threshold Adjustment**:");
  lines.push(
    `${f2(r.threshold.original)} → ${f2(r.threshold.adjusted)} (${r.threshold.level}${
      r.threshold.rules.length === 0 ? "" : `, rule ${r.threshold.rules.join(", ")}`
    })`,
  );
  lines.push(r.threshold.reasoning);
  lines.push("", "**Risk Assessment**:");
  lines.push(`• Complexity Risk: ${r.risk.complexity}`);
  lines.push(`• Resource Risk: ${r.risk.resource}`);
  lines.push(`• Uncertainty Risk: ${r.risk.uncertainty}`);
  return lines.join("\n");
}
