import type { IdeaBrief } from "../../artifacts/schemas/index.js";

/** An idea brief as chat text: the plan a person reads before deciding what to run. */
export function renderBrief(brief: IdeaBrief): string {
  const list = (items: string[]) => (items.length ? items.map((i) => `  - ${i}`).join("\n") : "  (none)");
  const tasks = brief.tasks.map((t) => {
    const deps = t.depends_on.length ? ` (after ${t.depends_on.join(", ")})` : "";
    return `  ${t.id}. ${t.title} [${t.task_type}]${deps}\n      ${t.request}`;
  });
  return [
    `Plan: ${brief.title}`,
    `Problem: ${brief.problem}`,
    `Goals:\n${list(brief.goals)}`,
    `Tasks (each sized for the iterate lane):\n${tasks.join("\n")}`,
    `Open questions:\n${list(brief.open_questions)}`,
    `Risks:\n${list(brief.risks)}`,
  ].join("\n");
}
