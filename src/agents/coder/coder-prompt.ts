import type { Lesson, ObservationArtifact, TaskArtifact } from "../../artifacts/schemas/index.js";
import { bulletList } from "../../util/markdown.js";
import { fillPrompt, loadPrompt } from "../../util/prompts.js";
import { redact } from "../../util/redact.js";

export interface CoderPromptInput {
  task: TaskArtifact;
  observation: ObservationArtifact;
  lessons: Lesson[];
  /** Contents of steps_to_complete_the_task.md, when a previous attempt failed. */
  steps: string | null;
}

/**
 * The coder's prompt: the task contract, the seam, and from the second attempt the repair context.
 * Redacted (ADR 0030): it quotes an earlier attempt's output and goes to the coder's own model and
 * into a prompt file; the coder gets the credentials it needs through its environment, never here.
 */
export function buildCoderPrompt(input: CoderPromptInput): string {
  return redact(fillCoderPrompt(input));
}

function fillCoderPrompt({ task, observation, lessons, steps }: CoderPromptInput): string {
  const seam = observation.failing_seam;
  const repair =
    lessons.length || steps
      ? fillPrompt(loadPrompt("coder", "repair-section.md"), {
          lessons: bulletList(lessons.map((l) => `${l.attempt_id}: ${l.lesson}`)),
          steps: steps?.trim() || "(none written)",
        })
      : "";
  return fillPrompt(loadPrompt("coder"), {
    title: task.title,
    current_behavior: task.current_behavior,
    desired_behavior: task.desired_behavior,
    success_criteria: bulletList(task.success_criteria.map((c) => `[ ] ${c}`)),
    seam_command: seam?.command ?? "(none)",
    green_condition: observation.expected_green_condition ?? "the command exits 0",
    seam_files: seam?.files.length ? seam.files.map((f) => `\`${f}\``).join(", ") : "(none)",
    scope_statement: task.scope_boundary.statement,
    allowed_paths: task.scope_boundary.allowed_paths.join(", ") || "(not restricted by path)",
    out_of_scope: task.scope_boundary.out_of_scope.join("; ") || "(nothing listed)",
    evidence: bulletList(observation.evidence.map((e) => e.claim)),
    repair_section: repair,
  });
}
