/**
 * Feedback on a gated answer: an accepted answer that failed pushes the threshold of its context
 * (project × operation × domain) up by 0.01, an abstention the user followed successfully pushes it down by
 * 0.01 (bounded, persisted; algorithms/README.md, the adaptive threshold). The outcome joins the answer's
 * row in the recommendation log.
 */
import { feedbackRequest } from "../contract/requests.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { defineJob } from "./job.ts";

export const feedbackJob = defineJob({
  request: feedbackRequest,
  result: RESULT_SCHEMAS.feedback,
  async run(ctx, r) {
    const { view, project } = ctx;
    const detected = view.gate.detectors.detect({ text: r.intent });
    const outcome =
      r.decision === "abstained"
        ? r.followed
          ? r.success
            ? "abstained-followed-succeeded"
            : "abstained-followed-failed"
          : "abstained-not-followed"
        : r.success
          ? "accepted-succeeded"
          : "accepted-failed";
    const state = await view.gate.recordOutcome(project, detected.operationType, detected.domain, outcome);
    ctx.log.outcome({
      project,
      recommendationId: r.recommendationId ?? null,
      session: r.session ?? null,
      kind: "feedback",
      success: r.success,
      followed: r.decision === "abstained" ? (r.followed ?? false) : true,
      executionId: null,
      tools: [],
    });
    return {
      project,
      context: { operation: detected.operationType ?? null, domain: detected.domain ?? null },
      outcome,
      offset: state.offset,
      counts: state.counts,
    };
  },
});
