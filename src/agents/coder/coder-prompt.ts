import { posix } from "node:path";
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
  /**
   * Seam paths pinned as absent on base (the contract's files with no hash: a `conftest.py` pytest
   * would load with the seam's test): named apart, as paths not to create, not as files to keep.
   */
  absentSeamPaths?: readonly string[];
}

/**
 * The coder's prompt: the task contract, the seam, and from the second attempt the repair context.
 * Redacted (ADR 0030): it quotes an earlier attempt's output and goes to the coder's own model and
 * into a prompt file; the coder gets the credentials it needs through its environment, never here.
 */
export function buildCoderPrompt(input: CoderPromptInput): string {
  return redact(fillCoderPrompt(input));
}

function fillCoderPrompt({
  task,
  observation,
  lessons,
  steps,
  absentSeamPaths = [],
}: CoderPromptInput): string {
  const seam = observation.failing_seam;
  const absent = new Set(absentSeamPaths);
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
    seam_files: seamFilesForPrompt((seam?.files ?? []).filter((f) => !absent.has(f))),
    seam_absent:
      absent.size > 0
        ? `\nDo not create these paths either (the test runner would load them with the seam's test): ${seamFilesForPrompt([...absent])}\n`
        : "",
    scope_statement: task.scope_boundary.statement,
    allowed_paths: task.scope_boundary.allowed_paths.join(", ") || "(not restricted by path)",
    out_of_scope: task.scope_boundary.out_of_scope.join("; ") || "(nothing listed)",
    evidence: bulletList(observation.evidence.map((e) => e.claim)),
    repair_section: repair,
  });
}

/**
 * A folder with more of the seam's files than this is named once, with their count. Ten keeps a
 * test folder's own few (the test, its helpers, a conftest.py, a fixture or two) named one by one,
 * so the seam's test file stays visible by name.
 */
const SEAM_FILES_NAMED_PER_FOLDER = 10;

/**
 * The seam's files as the prompt names them. A seam reading a folder of cases protects every file in
 * it (ADR 0019, amendment 3): hundreds of paths would flood the prompt, so a folder with more than
 * a few is named once, with the count ("`test/cases/` (120 files in it)"). The coder then leaves
 * the whole folder alone, which is what the verifier enforces for those files anyway.
 */
export function seamFilesForPrompt(files: readonly string[]): string {
  if (files.length === 0) return "(none)";
  const byFolder = new Map<string, string[]>();
  for (const file of files) {
    const folder = posix.dirname(file);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), file]);
  }
  const named: string[] = [];
  for (const [folder, inFolder] of byFolder) {
    if (inFolder.length <= SEAM_FILES_NAMED_PER_FOLDER) named.push(...inFolder.map((f) => `\`${f}\``));
    else named.push(`\`${folder}/\` (${inFolder.length} files in it)`);
  }
  return named.join(", ");
}
