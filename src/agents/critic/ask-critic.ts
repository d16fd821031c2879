import type { ModelGateway } from "../../models/contract.js";
import { askStructured } from "../kit/index.js";
import type { CriticPrompt } from "./critic-prompt.js";
import { CriticVerdict } from "./critic-verdict.js";

/** The critic's one structured call: a verdict per success criterion for one attempt. */
export function askCritic(
  gateway: ModelGateway,
  prompt: CriticPrompt,
  attemptId: string,
): Promise<CriticVerdict> {
  return askStructured({
    gateway,
    role: "critic",
    name: "critic_verdict",
    description: "One verdict per success criterion, blockers, and whether the task's plan is invalid",
    schema: CriticVerdict,
    system: prompt.system,
    input: prompt.user,
    attemptId,
  });
}
