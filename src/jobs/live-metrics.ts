/**
 * Acceptance and precision of accepted answers on live traffic, from the recommendation log.
 *
 * An answer is *accepted* when its gate decision is accepted or accepted-with-caution. It is *judged* when
 * an outcome joined it (feedback, or an execution of its session / naming its id), and then *correct* when:
 *   feedback:  success ∧ followed (an abstention the user did not follow is not correct);
 *   execution: success ∧ the execution ran one of the answer's accepted items (all its items when none
 *              was accepted).
 *   acceptance            = accepted / answers
 *   precision of accepted = correct accepted / judged accepted   (null when none is judged)
 * The risk–coverage curve is algorithms/evaluation/gating-curve.ts over (top score, correct) of the judged
 * answers; latencies are nearest-rank percentiles (algorithms/evaluation/percentile.ts).
 */
import { type GatingPoint, gatingCurve } from "../../algorithms/evaluation/gating-curve.ts";
import { percentile } from "../../algorithms/evaluation/percentile.ts";
import type { JoinedRecommendation } from "../store/recommendations.ts";

export const ACCEPTED_DECISIONS: ReadonlySet<string> = new Set(["accepted", "accepted-with-caution"]);

/** Whether the answer was right, from its joined outcome; null when nothing joined it. */
export function judgeAnswer(r: JoinedRecommendation): boolean | null {
  const o = r.outcome;
  if (!o) return null;
  if (o.kind === "feedback") return o.success && o.followed !== false;
  const accepted = r.items.filter((i) => i.decision !== null && ACCEPTED_DECISIONS.has(i.decision));
  const candidates = (accepted.length > 0 ? accepted : r.items).map((i) => i.id);
  const ran = new Set(o.tools);
  return o.success && candidates.some((id) => ran.has(id));
}

export interface JobMetrics {
  job: string;
  answers: number;
  accepted: number;
  acceptance: number;
  judged: number;
  acceptedJudged: number;
  acceptedCorrect: number;
  precisionAccepted: number | null;
  latencyP50Ms: number | null;
  latencyP99Ms: number | null;
}

export interface TimelinePoint {
  /** Start of the bucket (ISO). */
  start: string;
  answers: number;
  accepted: number;
  acceptance: number;
  acceptedJudged: number;
  precisionAccepted: number | null;
}

export interface LiveMetrics {
  answers: number;
  judged: number;
  perJob: JobMetrics[];
  timeline: TimelinePoint[];
  /** (threshold on the top score, coverage, precision) over the judged answers; at most 60 points. */
  riskCoverage: GatingPoint[];
}

function aggregate(rows: readonly JoinedRecommendation[]) {
  let accepted = 0;
  let judged = 0;
  let acceptedJudged = 0;
  let acceptedCorrect = 0;
  for (const r of rows) {
    const acc = ACCEPTED_DECISIONS.has(r.decision);
    const j = judgeAnswer(r);
    if (acc) accepted++;
    if (j !== null) judged++;
    if (acc && j !== null) {
      acceptedJudged++;
      if (j) acceptedCorrect++;
    }
  }
  return {
    answers: rows.length,
    accepted,
    acceptance: rows.length === 0 ? 0 : accepted / rows.length,
    judged,
    acceptedJudged,
    acceptedCorrect,
    precisionAccepted: acceptedJudged === 0 ? null : acceptedCorrect / acceptedJudged,
  };
}

/** Metrics of the given answers; `bucketMs` sets the timeline's step (default one hour). */
export function liveMetrics(rows: readonly JoinedRecommendation[], opts: { bucketMs?: number } = {}): LiveMetrics {
  const bucketMs = opts.bucketMs ?? 3_600_000;
  const byJob = new Map<string, JoinedRecommendation[]>();
  for (const r of rows) byJob.set(r.job, [...(byJob.get(r.job) ?? []), r]);
  const perJob: JobMetrics[] = [...byJob.entries()]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([job, rs]) => {
      const lat = rs.map((r) => r.latencyMs).filter((v): v is number => v !== null);
      const a = aggregate(rs);
      return { job, ...a, latencyP50Ms: percentile(lat, 50), latencyP99Ms: percentile(lat, 99) };
    });
  const byBucket = new Map<number, JoinedRecommendation[]>();
  for (const r of rows) {
    const b = Math.floor(r.createdAt.getTime() / bucketMs) * bucketMs;
    byBucket.set(b, [...(byBucket.get(b) ?? []), r]);
  }
  const timeline: TimelinePoint[] = [...byBucket.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([start, rs]) => {
      const a = aggregate(rs);
      return {
        start: new Date(start).toISOString(),
        answers: a.answers,
        accepted: a.accepted,
        acceptance: a.acceptance,
        acceptedJudged: a.acceptedJudged,
        precisionAccepted: a.precisionAccepted,
      };
    });
  const pairs = rows.flatMap((r) => {
    const j = judgeAnswer(r);
    return j === null || r.topScore === null ? [] : [{ score: r.topScore, correct: j }];
  });
  let curve = gatingCurve(pairs);
  if (curve.length > 60) {
    const step = (curve.length - 1) / 59;
    curve = Array.from({ length: 60 }, (_, i) => curve[Math.round(i * step)]!);
  }
  const all = aggregate(rows);
  return { answers: all.answers, judged: all.judged, perJob, timeline, riskCoverage: curve };
}
