import { join } from "node:path";
import { askPlanReview, planReviewCriteria } from "../../agents/critic/ask-plan-review.js";
import type { IdeaBrief, PlanReview, PlanVerify, Usage } from "../../artifacts/schemas/index.js";
import type { ArtifactStore } from "../../artifacts/store.js";
import type { ModelGateway } from "../../models/contract.js";
import { buildModelGateway } from "../../models/gateway.js";
import { nowIso } from "../../util/time.js";
import { verifyLines } from "./plan-verify.js";
import type { ComposeSettings } from "./settings.js";

const DIFF_FILE = "review/plan.diff";

/**
 * The compose lane's Review (ADR 0055): the critic over the whole plan diff. devflow decides from
 * the typed verdict: it passes only when every criterion (the brief's goals, then every task's
 * success criteria, matched in order and by text) is `met`, there is no blocker and the plan is
 * not judged invalid. A verdict that leaves out, reorders or rewrites a criterion does not pass.
 */
export async function reviewPlan(input: {
  settings: ComposeSettings;
  store: ArtifactStore;
  brief: IdeaBrief;
  diff: string;
  verify: PlanVerify;
  /** Approved re-plans so far: the review after re-plan n replays `review-r<n>.json`. */
  replans: number;
}): Promise<{ review: PlanReview; usage: Usage }> {
  const { store, brief } = input;
  await store.writeText(DIFF_FILE, input.diff);
  const gateway = await reviewGateway(input.settings, input.replans);
  const verdict = await askPlanReview({
    gateway,
    brief,
    diff: input.diff,
    diffPath: join(store.dir, DIFF_FILE),
    verifyLines: verifyLines(input.verify),
  });
  await gateway.flush();
  const expected = planReviewCriteria(brief);
  const judged = expected.map((criterion, i) => {
    const answer = verdict.criteria[i];
    return answer && answer.criterion.trim() === criterion.trim()
      ? answer
      : { criterion, verdict: "unclear" as const, reason: "the review gave no verdict for this criterion" };
  });
  const pass =
    judged.every((c) => c.verdict === "met") && verdict.blockers.length === 0 && !verdict.plan_invalid;
  return {
    review: {
      overall_result: pass ? "pass" : "fail",
      criteria: judged,
      blockers: verdict.blockers,
      plan_invalid: verdict.plan_invalid,
      summary: verdict.summary,
      diff: DIFF_FILE,
      at: nowIso(),
    },
    usage: gateway.usage().total,
  };
}

async function reviewGateway(settings: ComposeSettings, replans: number): Promise<ModelGateway> {
  if (settings.reviewGateway) return settings.reviewGateway();
  const live =
    settings.mode === "replay" ? null : (await import("../../models/live-chat-model.js")).EndpointChatOpenAI;
  return buildModelGateway(
    {
      mode: settings.mode,
      model: settings.model,
      ...(settings.cassetteDir
        ? { cassettePath: join(settings.cassetteDir, replans ? `review-r${replans}.json` : "review.json") }
        : {}),
      env: settings.env ?? process.env,
    },
    live,
  );
}
