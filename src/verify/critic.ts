import { askCritic } from "../agents/critic/ask-critic.js";
import { buildCriticPrompt, type CriticPromptInput } from "../agents/critic/critic-prompt.js";
import type { CriterionVerdict, CriticVerdict } from "../agents/critic/critic-verdict.js";
import type { CriticEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import type { ModelGateway } from "../models/contract.js";
import { startEnvelope } from "./envelope.js";

export interface CriticVerifierInput extends CriticPromptInput {
  gateway: ModelGateway;
  attemptId: string;
}

/** The verdict for one of the task's own success criteria, after matching the model's answer to it. */
export interface JudgedCriterion extends CriterionVerdict {
  index: number;
  /** False when the model gave no verdict for this criterion (then it counts as unclear). */
  answered: boolean;
}

/**
 * Asks the critic model whether the attempt satisfies each success criterion, from bounded
 * evidence (buildCriticPrompt). Passes only when every criterion is met, there are no blockers
 * and the plan is not declared invalid; a model failure is an "error" envelope, never a pass.
 */
export async function runCriticVerifier(input: CriticVerifierInput): Promise<CriticEnvelope> {
  const env = startEnvelope("critic", input.attemptId);
  let prompt: ReturnType<typeof buildCriticPrompt>;
  try {
    prompt = buildCriticPrompt(input);
  } catch (err) {
    return env.finish({
      overall_result: "error",
      green_condition_alignment: "unknown",
      summary: `could not build the critic prompt: ${(err as Error).message}`,
      evidence_refs: [input.diffPath],
      native_payload: { skip_reason: "prompt_not_built" },
    });
  }
  const promptStats = { prompt_bytes: prompt.bytes, diff: prompt.diff };

  let verdict: CriticVerdict;
  try {
    verdict = await askCritic(input.gateway, prompt, input.attemptId);
  } catch (err) {
    return env.finish({
      overall_result: "error",
      green_condition_alignment: "unknown",
      summary: `the critic model could not give a verdict: ${(err as Error).message}`,
      evidence_refs: prompt.evidenceRefs,
      native_payload: { ...promptStats, model: modelName(input.gateway) },
    });
  }

  const judged = matchCriteria(input.task.success_criteria, verdict.criteria);
  const unmet = judged.filter((c) => c.verdict === "unmet");
  const unclear = judged.filter((c) => c.verdict === "unclear");
  const pass =
    unmet.length === 0 && unclear.length === 0 && verdict.blockers.length === 0 && !verdict.plan_invalid;

  return env.finish({
    overall_result: pass ? "pass" : "fail",
    green_condition_alignment: pass
      ? "aligned"
      : unmet.length > 0 || verdict.plan_invalid
        ? "misaligned"
        : "unknown",
    summary: pass
      ? `all ${judged.length} success criteria met: ${verdict.summary}`
      : failureSummary(unmet, unclear, verdict),
    evidence_refs: prompt.evidenceRefs,
    native_payload: {
      ...promptStats,
      model: modelName(input.gateway),
      criteria: judged,
      blockers: verdict.blockers,
      plan_invalid: verdict.plan_invalid,
      critic_summary: verdict.summary,
      unmatched_model_criteria: verdict.criteria
        .filter((c) => !judged.some((j) => j.answered && j.criterion === c.criterion))
        .map((c) => c.criterion),
    },
  });
}

/**
 * Pairs the model's verdicts with the task's criteria: by normalized text first, then by
 * position when the model answered exactly as many criteria as there are. Anything left
 * without a verdict is "unclear", so a skipped criterion can never pass.
 */
export function matchCriteria(
  criteria: readonly string[],
  answers: readonly CriterionVerdict[],
): JudgedCriterion[] {
  const used = new Set<number>();
  const byText = criteria.map((c) => {
    const i = answers.findIndex((a, j) => !used.has(j) && normalize(a.criterion) === normalize(c));
    if (i >= 0) used.add(i);
    return i;
  });
  const positional = answers.length === criteria.length;
  return criteria.map((criterion, index) => {
    let i = byText[index] ?? -1;
    if (i < 0 && positional && !used.has(index)) {
      i = index;
      used.add(index);
    }
    const a = i >= 0 ? answers[i] : undefined;
    if (!a) {
      return {
        index,
        criterion,
        verdict: "unclear",
        reason: "the critic gave no verdict for this criterion",
        answered: false,
      };
    }
    return { index, criterion, verdict: a.verdict, reason: a.reason, answered: true };
  });
}

function normalize(s: string): string {
  return s
    .toLowerCase()
    .replace(/^\s*(c?\d+[.):]\s*)/, "")
    .replace(/[`"'*]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

function failureSummary(unmet: JudgedCriterion[], unclear: JudgedCriterion[], v: CriticVerdict): string {
  const parts: string[] = [];
  for (const c of unmet) parts.push(`unmet #${c.index + 1} "${c.criterion}": ${c.reason}`);
  for (const c of unclear) parts.push(`unclear #${c.index + 1} "${c.criterion}": ${c.reason}`);
  if (v.blockers.length > 0) parts.push(`blockers: ${v.blockers.join("; ")}`);
  if (v.plan_invalid) parts.push(`the critic judges the task's plan invalid: ${v.summary}`);
  return parts.join(" | ");
}

function modelName(gateway: ModelGateway): string {
  try {
    return gateway.modelName("critic");
  } catch {
    return "unknown";
  }
}
