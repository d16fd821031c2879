import { existsSync } from "node:fs";
import { join } from "node:path";
import { attemptId } from "../../src/index.js";
import { checkProblems, type Problem } from "../grade.js";
import type { Check } from "../types.js";
import type { RunArtifacts } from "./run-artifacts.js";

/** An attempt summary is a pointer to verifier output, not a copy of it. */
const MAX_SUMMARY_CHARS = 1500;

/**
 * Attempt ids are exactly attempt-001, attempt-002, ... in execution order, on disk and in
 * iterator_run; each summary points at files that exist and agree with it (verifier refs with the
 * same overall_result, the coder report), and stays concise.
 */
export function gradeAttempts(a: RunArtifacts): Check[] {
  const onDisk = a.attempts.map((x) => x.id);
  const expected = onDisk.map((_, i) => attemptId(i + 1));
  const recorded = a.run?.attempts.map((x) => x.attempt_id) ?? [];
  const idProblems: Problem[] = [
    onDisk.join() !== expected.join() &&
      `attempt directories ${onDisk.join(", ")} are not ${expected.join(", ")}`,
    recorded.join() !== onDisk.slice(0, recorded.length).join() &&
      `iterator_run records ${recorded.join(", ")} but the directories are ${onDisk.join(", ")}`,
    recorded.length < onDisk.length - 1 &&
      `attempts on disk without a record in iterator_run: ${onDisk.slice(recorded.length).join(", ")}`,
  ];

  const refProblems: string[] = [];
  for (const summary of a.run?.attempts ?? []) {
    const attempt = a.attempts.find((x) => x.id === summary.attempt_id);
    if (!a.dir || !existsSync(join(a.dir, summary.coder_report_ref)))
      refProblems.push(`${summary.attempt_id}: coder_report_ref ${summary.coder_report_ref} does not exist`);
    for (const ref of summary.verifier_refs) {
      const name =
        ref.path
          .split("/")
          .at(-1)
          ?.replace(/\.json$/, "") ?? "";
      const envelope = attempt?.envelopeByFile[name];
      if (!envelope) refProblems.push(`${summary.attempt_id}: ${ref.path} does not exist or is invalid`);
      else if (envelope.overall_result !== ref.overall_result)
        refProblems.push(
          `${summary.attempt_id}: summary says ${ref.verifier} ${ref.overall_result}, ${ref.path} says ${envelope.overall_result}`,
        );
    }
    if (summary.verifier_refs.length === 0)
      refProblems.push(`${summary.attempt_id} cites no verifier output`);
    if (summary.summary.length > MAX_SUMMARY_CHARS)
      refProblems.push(
        `${summary.attempt_id} summary is ${summary.summary.length} chars (inline output instead of a pointer)`,
      );
  }
  return [
    checkProblems("attempt_ids_ordinal", idProblems),
    checkProblems("attempt_refs_resolve", refProblems),
  ];
}
