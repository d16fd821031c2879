import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exampleArtifacts } from "../../test/support/artifact-examples.js";
import { type DevflowError, isDevflowError } from "../errors/index.js";
import { CoderReport, Lesson, VerifierEnvelope } from "./schemas/index.js";
import { ArtifactStore, type RevisionedInput } from "./store.js";

let root = "";
let store: ArtifactStore;
const examples = exampleArtifacts();

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "devflow-store-"));
  store = new ArtifactStore(join(root, "fix-total-rounding"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function taskDraft(title: string): RevisionedInput<"task_artifact"> {
  const { revision: _revision, ...draft } = examples.task_artifact;
  return { ...draft, title };
}

/** Every file under the task dir with its content, to prove a refused operation changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[relative(dir, full)] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return files;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}

describe("ArtifactStore revisioned artifacts", () => {
  it("returns null for an artifact never written", async () => {
    expect(await store.read("task_artifact")).toBeNull();
    expect(await store.currentRevision("task_artifact")).toBe(0);
    expect(await store.history("task_artifact")).toEqual([]);
  });

  it("numbers revisions 1, 2, 3 and keeps r001 and r002 in history byte for byte", async () => {
    const r1 = await store.write("task_artifact", taskDraft("one"), { expectedRevision: 0 });
    const r1Bytes = readFileSync(store.path("task_artifact"), "utf8");
    const r2 = await store.write("task_artifact", taskDraft("two"), { expectedRevision: 1 });
    const r2Bytes = readFileSync(store.path("task_artifact"), "utf8");
    const r3 = await store.write("task_artifact", taskDraft("three"), { expectedRevision: 2 });

    expect([r1.revision, r2.revision, r3.revision]).toEqual([1, 2, 3]);
    expect(await store.read("task_artifact")).toMatchObject({ revision: 3, title: "three" });
    expect(await store.history("task_artifact")).toEqual([1, 2]);
    expect(readdirSync(join(store.dir, "history")).sort()).toEqual([
      "task_artifact.r001.json",
      "task_artifact.r002.json",
    ]);
    expect(readFileSync(join(store.dir, "history", "task_artifact.r001.json"), "utf8")).toBe(r1Bytes);
    expect(readFileSync(join(store.dir, "history", "task_artifact.r002.json"), "utf8")).toBe(r2Bytes);
    expect(await store.readRevision("task_artifact", 1)).toMatchObject({ revision: 1, title: "one" });
    expect(await store.readRevision("task_artifact", 3)).toMatchObject({ revision: 3, title: "three" });
    expect(await store.readRevision("task_artifact", 4)).toBeNull();
  });

  it("assigns the revision itself, ignoring one passed in the value", async () => {
    const written = await store.write(
      "task_artifact",
      { ...taskDraft("x"), revision: 42 },
      { expectedRevision: 0 },
    );
    expect(written.revision).toBe(1);
    expect(JSON.parse(readFileSync(store.path("task_artifact"), "utf8")).revision).toBe(1);
  });

  it("writes 2-space JSON with a trailing newline, in schema field order", async () => {
    await store.write("task_artifact", taskDraft("x"), { expectedRevision: 0 });
    const text = readFileSync(store.path("task_artifact"), "utf8");
    expect(text).toBe(`${JSON.stringify(await store.read("task_artifact"), null, 2)}\n`);
    expect(text.split("\n")[1]).toBe('  "title": "x",');
  });

  it("refuses a write based on a stale revision and changes nothing on disk", async () => {
    await store.write("task_artifact", taskDraft("one"), { expectedRevision: 0 });
    await store.write("task_artifact", taskDraft("two"), { expectedRevision: 1 });
    const before = snapshot(store.dir);

    const error = await rejection(store.write("task_artifact", taskDraft("late"), { expectedRevision: 1 }));
    expect(error).toMatchObject({ code: "STALE_REVISION" });
    expect(error.message).toContain("task_artifact is at r2 on disk but this write was based on r1");
    expect(snapshot(store.dir)).toEqual(before);

    const fresh = await rejection(store.write("task_artifact", taskDraft("dup"), { expectedRevision: 0 }));
    expect(fresh.message).toContain("task_artifact is at r2 on disk but this write was based on r0");
    const missing = await rejection(
      store.write("observation_artifact", examples.observation_artifact, { expectedRevision: 3 }),
    );
    expect(missing.message).toContain("observation_artifact is at r0 on disk but this write was based on r3");
    expect(snapshot(store.dir)).toEqual(before);
  });

  it("refuses an expectedRevision that is not a non-negative integer", async () => {
    const error = await rejection(store.write("task_artifact", taskDraft("x"), { expectedRevision: -1 }));
    expect(error).toMatchObject({ code: "ARTIFACT_PATH_INVALID" });
    expect(error.message).toContain("expectedRevision for task_artifact");
  });

  it("never writes an invalid value, new or replacing an existing revision", async () => {
    const invalid = { ...taskDraft("x"), success_criteria: [] };
    const first = await rejection(store.write("task_artifact", invalid, { expectedRevision: 0 }));
    expect(first).toMatchObject({ code: "ARTIFACT_INVALID" });
    expect(first.message).toContain(`refusing to write ${store.path("task_artifact")}`);
    expect(first.message).toContain("/success_criteria: must NOT have fewer than 1 items");
    expect(first.message).toContain("Nothing was written.");
    expect(() => statSync(store.path("task_artifact"))).toThrow();

    await store.write("task_artifact", taskDraft("good"), { expectedRevision: 0 });
    const before = snapshot(store.dir);
    await rejection(store.write("task_artifact", invalid, { expectedRevision: 1 }));
    expect(snapshot(store.dir)).toEqual(before);
  });

  it("refuses unknown fields on write (a misspelt field would otherwise be silently dropped)", async () => {
    // Not a fresh literal, as when the value comes from parsed model output: TypeScript lets it through.
    const withTypo = { ...taskDraft("x"), sucess_criteria: ["typo"] };
    const error = await rejection(store.write("task_artifact", withTypo, { expectedRevision: 0 }));
    expect((error as DevflowError<"ARTIFACT_INVALID">).details.problems).toEqual([
      "/sucess_criteria: is not a field of this schema (misspelt or from another version?)",
    ]);
  });

  it("refuses a tampered file on read with a pointer to each bad field and the file path", async () => {
    await store.write("iterator_run", examples.iterator_run, { expectedRevision: 0 });
    const file = store.path("iterator_run");
    const onDisk = JSON.parse(readFileSync(file, "utf8"));
    onDisk.revision = "1";
    delete onDisk.task_id;
    onDisk.readiness.cites.task_artifact_revision = 0;
    writeFileSync(file, JSON.stringify(onDisk));

    const error = await rejection(store.read("iterator_run"));
    if (!isDevflowError(error, "ARTIFACT_INVALID"))
      throw new Error(`expected ARTIFACT_INVALID, got ${error}`);
    expect(error.details.file).toBe(file);
    expect(error.details.problems).toEqual([
      "/task_id: is required but missing",
      "/revision: must be integer",
      "/readiness/cites/task_artifact_revision: must be >= 1",
    ]);
    expect(error.message).toContain(`${file}: not a valid iterator_run`);
  });

  it("refuses to write on top of a tampered file (its revision cannot be trusted)", async () => {
    await store.write("task_artifact", taskDraft("one"), { expectedRevision: 0 });
    const file = store.path("task_artifact");
    writeFileSync(file, readFileSync(file, "utf8").replace('"revision": 1', '"revision": "one"'));
    const before = snapshot(store.dir);
    await expect(store.write("task_artifact", taskDraft("two"), { expectedRevision: 1 })).rejects.toThrow(
      expect.objectContaining({ code: "ARTIFACT_INVALID" }),
    );
    expect(snapshot(store.dir)).toEqual(before);
  });

  it("names the file when it is not JSON at all", async () => {
    mkdirSync(store.dir, { recursive: true });
    writeFileSync(store.path("task_artifact"), '{"title": ');
    const error = await rejection(store.read("task_artifact"));
    expect(error).toMatchObject({ code: "ARTIFACT_NOT_JSON" });
    expect(error.message).toContain(`${store.path("task_artifact")} is not valid JSON`);
  });

  it("refuses a history file that already holds a different revision (history is never rewritten)", async () => {
    await store.write("task_artifact", taskDraft("one"), { expectedRevision: 0 });
    mkdirSync(join(store.dir, "history"));
    const historyFile = join(store.dir, "history", "task_artifact.r001.json");
    writeFileSync(historyFile, "something else\n");
    const error = await rejection(store.write("task_artifact", taskDraft("two"), { expectedRevision: 1 }));
    expect(error).toMatchObject({ code: "HISTORY_CONFLICT" });
    expect(error.message).toContain(historyFile);
    expect(readFileSync(historyFile, "utf8")).toBe("something else\n");
    expect(await store.read("task_artifact")).toMatchObject({ revision: 1, title: "one" });
  });

  it("accepts an identical history copy already in place (a write retried after a crash)", async () => {
    await store.write("task_artifact", taskDraft("one"), { expectedRevision: 0 });
    mkdirSync(join(store.dir, "history"));
    writeFileSync(
      join(store.dir, "history", "task_artifact.r001.json"),
      readFileSync(store.path("task_artifact")),
    );
    await store.write("task_artifact", taskDraft("two"), { expectedRevision: 1 });
    expect(await store.history("task_artifact")).toEqual([1]);
  });

  it("lets exactly one of several writers racing from the same base revision win", async () => {
    await store.write("task_artifact", taskDraft("base"), { expectedRevision: 0 });
    const writers = Array.from({ length: 6 }, () => new ArtifactStore(store.dir));
    const results = await Promise.allSettled(
      writers.map((writer, i) =>
        writer.write("task_artifact", taskDraft(`writer ${i}`), { expectedRevision: 1 }),
      ),
    );

    const winners = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const losers = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(5);
    for (const loser of losers) {
      expect(loser).toMatchObject({ code: "STALE_REVISION" });
      expect(String(loser)).toContain("task_artifact is at r2 on disk but this write was based on r1");
    }
    expect(await store.read("task_artifact")).toEqual(winners[0]);
    expect(await store.history("task_artifact")).toEqual([1]);
    expect(readdirSync(store.dir)).not.toContain(".store.lock");
  });
});

describe("ArtifactStore task logs (jsonl)", () => {
  const lesson = (n: number) => ({ ...examples.lesson, attempt_id: `attempt-00${n}`, lesson: `lesson ${n}` });

  it("appends one validated line per value and reads them back in order", async () => {
    await store.appendJsonl("lessons.jsonl", Lesson, lesson(1));
    await store.appendJsonl("lessons.jsonl", Lesson, lesson(2));
    const text = readFileSync(join(store.dir, "lessons.jsonl"), "utf8");
    expect(text.split("\n")).toHaveLength(3);
    expect(text.endsWith("\n")).toBe(true);
    expect(await store.readJsonl("lessons.jsonl", Lesson)).toEqual([lesson(1), lesson(2)]);
  });

  it("returns an empty list for a log never written", async () => {
    expect(await store.readJsonl("events.jsonl", Lesson)).toEqual([]);
  });

  it("never appends an invalid line", async () => {
    await store.appendJsonl("lessons.jsonl", Lesson, lesson(1));
    const before = snapshot(store.dir);
    await expect(store.appendJsonl("lessons.jsonl", Lesson, { ...lesson(2), lesson: "" })).rejects.toThrow(
      /\/lesson: must NOT have fewer than 1 characters/,
    );
    expect(snapshot(store.dir)).toEqual(before);
  });

  it("checks a line against the log's own schema even when handed another one", async () => {
    const error = await rejection(store.appendJsonl("events.jsonl", Lesson, lesson(1)));
    expect(error).toMatchObject({ code: "ARTIFACT_INVALID" });
    expect(error.message).toContain("not a valid event");
  });

  it("reports a bad line by its line number: unparsable JSON, then a line that breaks the schema", async () => {
    await store.appendJsonl("lessons.jsonl", Lesson, lesson(1));
    const file = join(store.dir, "lessons.jsonl");
    writeFileSync(file, `${readFileSync(file, "utf8")}{"attempt_id": \n`);
    const parse = await rejection(store.readJsonl("lessons.jsonl", Lesson));
    expect(parse).toMatchObject({ code: "ARTIFACT_NOT_JSON" });
    expect(parse.message).toContain(`${file} line 2 is not valid JSON`);

    writeFileSync(
      file,
      `${JSON.stringify(lesson(1))}\n\n${JSON.stringify({ ...lesson(3), attempt_id: "a3" })}\n`,
    );
    const invalid = await rejection(store.readJsonl("lessons.jsonl", Lesson));
    expect(invalid).toMatchObject({ code: "ARTIFACT_INVALID" });
    expect(invalid.message).toContain(`${file} line 3: not a valid lesson`);
    expect(invalid.message).toContain("/attempt_id: must match pattern");
  });

  // The append reads the last byte to tell a torn line from a whole one (synchronous since issue 11):
  // after a whole line it adds no blank line.
  it("appends right after a whole last line, one line per value", async () => {
    await store.appendJsonl("lessons.jsonl", Lesson, lesson(1));
    await store.appendJsonl("lessons.jsonl", Lesson, lesson(3));
    expect(readFileSync(join(store.dir, "lessons.jsonl"), "utf8")).toBe(
      `${JSON.stringify(lesson(1))}\n${JSON.stringify(lesson(3))}\n`,
    );
  });

  it("starts a new line after a torn last line so only the torn line is lost", async () => {
    await store.appendJsonl("lessons.jsonl", Lesson, lesson(1));
    const file = join(store.dir, "lessons.jsonl");
    writeFileSync(file, `${readFileSync(file, "utf8")}{"attempt_id": "attempt-0`);
    await store.appendJsonl("lessons.jsonl", Lesson, lesson(3));
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines[1]).toBe('{"attempt_id": "attempt-0');
    expect(JSON.parse(lines[2] ?? "")).toEqual(lesson(3));
    await expect(store.readJsonl("lessons.jsonl", Lesson)).rejects.toThrow(/line 2 is not valid JSON/);
  });

  it("only knows lessons.jsonl and events.jsonl", async () => {
    const error = await rejection(store.readJsonl("notes.jsonl" as "lessons.jsonl", Lesson));
    expect(error).toMatchObject({ code: "ARTIFACT_PATH_INVALID" });
    expect(error.message).toContain("use one of lessons.jsonl, events.jsonl");
  });
});

describe("ArtifactStore attempts", () => {
  it("lists attempt ids in execution order, past attempt-999, ignoring anything else", async () => {
    for (const id of ["attempt-100", "attempt-010", "attempt-1000", "attempt-009", "attempt-011"])
      store.attemptDir(id);
    mkdirSync(join(store.dir, "attempts", "attempt-x"));
    writeFileSync(join(store.dir, "attempts", "attempt-002"), "a file, not an attempt");
    expect(await store.listAttempts()).toEqual([
      "attempt-009",
      "attempt-010",
      "attempt-011",
      "attempt-100",
      "attempt-1000",
    ]);
  });

  it("has no attempts before the first one", async () => {
    expect(await store.listAttempts()).toEqual([]);
  });

  it("creates attempts/attempt-NNN/ and refuses malformed attempt ids", () => {
    const dir = store.attemptDir("attempt-001");
    expect(dir).toBe(join(store.dir, "attempts", "attempt-001"));
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(() => store.attemptDir("attempt-1")).toThrow(/expected attempt-NNN with at least 3 digits/);
    expect(() => store.attemptDir("../attempt-001")).toThrow(
      expect.objectContaining({ code: "ARTIFACT_PATH_INVALID" }),
    );
  });

  it("writes and reads back validated attempt JSON, including nested verifier files", async () => {
    const report = await store.writeAttemptJson(
      "attempt-001",
      "coder_report.json",
      CoderReport,
      examples.coder_report,
    );
    await store.writeAttemptJson(
      "attempt-001",
      "verifiers/seam.json",
      VerifierEnvelope,
      examples.verifier_envelope,
    );
    expect(report).toEqual(examples.coder_report);
    expect(await store.readAttemptJson("attempt-001", "coder_report.json", CoderReport)).toEqual(
      examples.coder_report,
    );
    expect(await store.readAttemptJson("attempt-001", "verifiers/seam.json", VerifierEnvelope)).toEqual(
      examples.verifier_envelope,
    );
    expect(await store.readAttemptJson("attempt-002", "coder_report.json", CoderReport)).toBeNull();
    expect(store.attemptRef("attempt-001", "verifiers/seam.json")).toBe(
      "attempts/attempt-001/verifiers/seam.json",
    );
  });

  it("refuses invalid attempt JSON (ajv too, by schema identity) and paths that leave the attempt", async () => {
    const before = snapshot(root);
    const withExtra = { ...examples.coder_report, extra: 1 };
    await expect(
      store.writeAttemptJson("attempt-001", "coder_report.json", CoderReport, withExtra),
    ).rejects.toThrow(/\/extra: is not a field of this schema/);
    await expect(
      store.writeAttemptJson(
        "attempt-001",
        "../attempt-002/coder_report.json",
        CoderReport,
        examples.coder_report,
      ),
    ).rejects.toThrow(expect.objectContaining({ code: "ARTIFACT_PATH_INVALID" }));
    await expect(
      store.writeAttemptJson("attempt-001", "coder_report.txt", CoderReport, examples.coder_report),
    ).rejects.toThrow(/must end in \.json/);
    expect(snapshot(root)).toEqual(before);
  });

  it("refuses a tampered attempt file on read", async () => {
    await store.writeAttemptJson(
      "attempt-001",
      "verifiers/seam.json",
      VerifierEnvelope,
      examples.verifier_envelope,
    );
    const file = join(store.attemptDir("attempt-001"), "verifiers", "seam.json");
    writeFileSync(file, JSON.stringify({ ...examples.verifier_envelope, overall_result: "green" }));
    await expect(
      store.readAttemptJson("attempt-001", "verifiers/seam.json", VerifierEnvelope),
    ).rejects.toThrow(/\/overall_result: must be one of "pass", "fail", "error", "skipped"/);
  });
});

describe("ArtifactStore text files", () => {
  it("writes text atomically under the task dir and reads it back", async () => {
    const path = await store.writeText("attempts/attempt-001/diff.patch", "--- a\n+++ b\n");
    expect(path).toBe(join(store.dir, "attempts", "attempt-001", "diff.patch"));
    expect(await store.readText("attempts/attempt-001/diff.patch")).toBe("--- a\n+++ b\n");
    expect(await store.readText("confirmation.md")).toBeNull();
  });

  /*
   * Attempt diff written twice (issue 11): a first attempt's diff.patch and cumulative.diff.patch
   * hold the same bytes, and a 10.7 MB diff became 42 MB of artifacts. Fix: writeText with
   * `sameAs` hard-links the file the last writeText wrote when the text is the same. Pins that only
   * the same text is linked and that a change to the linked bytes behind the store's back is still
   * found under both names.
   */
  it("links the same text instead of writing it twice, and only the same text", async () => {
    const patch = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    const first = await store.writeText("attempts/attempt-001/diff.patch", patch);
    const same = await store.writeText("attempts/attempt-001/cumulative.diff.patch", patch, {
      sameAs: "attempts/attempt-001/diff.patch",
    });
    expect(statSync(same).ino).toBe(statSync(first).ino);
    expect(readFileSync(same, "utf8")).toBe(patch);

    const second = await store.writeText("attempts/attempt-002/diff.patch", patch);
    const other = await store.writeText("attempts/attempt-002/cumulative.diff.patch", `${patch}+c\n`, {
      sameAs: "attempts/attempt-002/diff.patch",
    });
    expect(statSync(other).ino).not.toBe(statSync(second).ino);
    expect(readFileSync(other, "utf8")).toBe(`${patch}+c\n`);

    writeFileSync(first, "tampered\n", { flag: "r+" });
    expect(await store.changedBehindOurBack()).toEqual([
      "attempts/attempt-001/cumulative.diff.patch",
      "attempts/attempt-001/diff.patch",
    ]);
  });

  it("refuses paths outside the task dir and files the store manages or validates", async () => {
    await expect(store.writeText("../outside.md", "x")).rejects.toThrow(
      expect.objectContaining({ code: "ARTIFACT_PATH_INVALID" }),
    );
    await expect(store.writeText("/etc/passwd", "x")).rejects.toThrow(
      expect.objectContaining({ code: "ARTIFACT_PATH_INVALID" }),
    );
    await expect(store.writeText("task_artifact.json", "{}")).rejects.toThrow(
      /managed by the artifact store/,
    );
    await expect(store.writeText("history/task_artifact.r001.json", "{}")).rejects.toThrow(/managed/);
    await expect(store.writeText("run.owner", "{}")).rejects.toThrow(/managed/);
    await expect(store.writeText("attempts/attempt-001/coder_report.json", "{}")).rejects.toThrow(
      /JSON artifacts go through/,
    );
  });
});

/**
 * issue 11 (per-attempt CPU): every read of an artifact went through JSON.parse, ajv and zod again,
 * the same bytes several times per attempt. Fix: the store keeps the last parse per file, keyed by
 * the exact text and schema, and hands out copies. Pinned: a file changed on disk is checked again
 * (an invalid one refused), and a caller editing its value cannot change the next read.
 */
describe("ArtifactStore reads of unchanged bytes", () => {
  it("checks changed bytes again and gives every caller its own copy", async () => {
    await store.write("task_artifact", taskDraft("one"), { expectedRevision: 0 });
    const first = await store.read("task_artifact");
    if (!first) throw new Error("the task artifact was not read back");
    first.title = "edited by a caller";
    expect(await store.read("task_artifact")).toMatchObject({ title: "one" });
    const file = store.path("task_artifact");
    const valid = readFileSync(file, "utf8");
    writeFileSync(file, valid.replace('"revision": 1', '"revision": "one"'));
    expect(isDevflowError(await rejection(store.read("task_artifact")))).toBe(true);
    writeFileSync(file, valid.replace('"one"', '"changed on disk"'));
    expect(await store.read("task_artifact")).toMatchObject({ title: "changed on disk" });

    await store.writeAttemptJson("attempt-001", "coder_report.json", CoderReport, examples.coder_report);
    const readReport = () => store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
    (await readReport())?.changed_files.push("planted by the first reader");
    (await readReport())?.changed_files.push("planted by a later reader");
    const again = await readReport();
    expect(again?.changed_files).toEqual(examples.coder_report.changed_files);
    const reportFile = join(store.attemptDir("attempt-001"), "coder_report.json");
    writeFileSync(reportFile, readFileSync(reportFile, "utf8").replace('"status"', '"stat"'));
    expect(
      isDevflowError(await rejection(store.readAttemptJson("attempt-001", "coder_report.json", CoderReport))),
    ).toBe(true);
  });
});
