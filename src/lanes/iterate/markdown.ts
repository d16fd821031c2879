import type { TaskArtifact } from "../../artifacts/schemas/index.js";

/** confirmation.md: the acceptance checklist, from the task's success criteria (docs/origins.md#00-junie-orchestrator). */
export function confirmationMarkdown(task: TaskArtifact): string {
  const items = task.success_criteria.map((c) => `- [ ] ${c}`).join("\n");
  return `# Acceptance checklist: ${task.title}\n\nTask \`${task.task_id}\`, task_artifact r${task.revision}.\n\n${items}\n`;
}

/** steps_to_complete_the_task.md: what remains, written for the next attempt (docs/origins.md#00-junie-orchestrator). */
export function stepsMarkdown(attemptId: string, reason: string, steps: string[]): string {
  const list = steps.map((s, i) => `${i + 1}. ${s}`).join("\n");
  return `# Steps to complete the task\n\nAfter ${attemptId}: ${reason}\n\n${list}\n`;
}
