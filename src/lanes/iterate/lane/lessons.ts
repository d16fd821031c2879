import { Lesson } from "../../../artifacts/schemas/index.js";
import type { ArtifactStore } from "../../../artifacts/store.js";
import { nowIso } from "../../../util/time.js";

export type LessonSource = NonNullable<Lesson["source"]>;

/**
 * Appends a lesson unless the same one is already in lessons.jsonl: a node re-run after a crash
 * (LangGraph re-runs it from its first line) must not list a lesson twice in the next prompt
 * (issue 10, ADR 0033). The key is the attempt and the source; a salvage lesson (one per timed-out
 * run of an attempt) is also keyed by its text. Returns whether it was appended.
 */
export async function appendLessonOnce(
  store: ArtifactStore,
  lesson: { attempt_id: string; source: LessonSource; lesson: string; failed_verifiers: string[] },
): Promise<boolean> {
  const lessons = await store.readJsonl("lessons.jsonl", Lesson);
  const already = lessons.some(
    (l) =>
      l.attempt_id === lesson.attempt_id &&
      l.source === lesson.source &&
      (lesson.source !== "salvage" || l.lesson === lesson.lesson),
  );
  if (already) return false;
  await store.appendJsonl("lessons.jsonl", Lesson, { ...lesson, at: nowIso() });
  return true;
}
