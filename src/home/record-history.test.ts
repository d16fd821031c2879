import { readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { exampleArtifacts } from "../../test/support/artifact-examples.js";
import { makeRepo, removeDir } from "../../test/support/test-repo.js";
import { claimRecordId } from "./mint-id.js";
import { keepRecordHistory, readRecord, recordHistoryPath, writeRecord } from "./record-store.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) removeDir(root);
});

/**
 * A compose re-plan keeps the brief as it stood before replacing it (ADR 0055 §13). A resume after
 * a crash that came after the revised brief was written asks again and keeps history again: the
 * first copy (the brief before any re-plan) must survive, never be replaced by the revised one.
 */
it("keepRecordHistory keeps the first copy of a revision: a repeat after the brief was replaced does not overwrite it", async () => {
  const root = makeRepo();
  roots.push(root);
  const id = claimRecordId(root, "idea", "Cleaner CSV import");
  const brief = { ...exampleArtifacts().idea_brief, id };
  await writeRecord(root, "idea", brief);
  const path = await keepRecordHistory(root, "idea", id, 1);
  expect(path).toBe(recordHistoryPath(root, "idea", id, 1));
  expect(path).toMatch(/history\/idea_brief\.r001\.json$/);
  await writeRecord(root, "idea", { ...brief, title: "Revised plan" });
  await keepRecordHistory(root, "idea", id, 1);
  expect(JSON.parse(readFileSync(path, "utf8")).title).toBe(brief.title);
  expect(readRecord(root, "idea", id)?.title).toBe("Revised plan");
});
