/**
 * history/ by hard link (issue 11, session 25): a revisioned write kept the revision it replaces
 * with a second atomic write (~1.4 ms of CPU, ~4 times per attempt); it now hard-links the
 * current file there, since every write replaces the current file by rename, never in place.
 * Pinned: the kept revision is its own inode once the next one is in place (a later in-place
 * change of the current file cannot reach it); a link that does not hold the bytes the write was
 * based on is removed and those bytes written instead; a file system without hard links gets the
 * bytes written as before.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as fsPromises from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { exampleArtifacts } from "../../test/support/artifact-examples.js";
import { ArtifactStore, type RevisionedInput } from "./store.js";

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, link: vi.fn(actual.link) };
});
const link = vi.mocked(fsPromises.link);

let root = "";
let store: ArtifactStore;
const examples = exampleArtifacts();

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "devflow-store-history-"));
  store = new ArtifactStore(join(root, "task"));
});
afterEach(async () => {
  rmSync(root, { recursive: true, force: true });
  const actual = await vi.importActual<typeof import("node:fs/promises")>("node:fs/promises");
  link.mockReset();
  link.mockImplementation(actual.link);
});

function taskDraft(title: string): RevisionedInput<"task_artifact"> {
  const { revision: _revision, ...draft } = examples.task_artifact;
  return { ...draft, title };
}

const historyFile = () => join(store.dir, "history", "task_artifact.r001.json");

describe("ArtifactStore history by hard link", () => {
  it("keeps the replaced revision as its own file: an in-place change of the current file does not reach it", async () => {
    await store.write("task_artifact", taskDraft("one"), { expectedRevision: 0 });
    const r1Bytes = readFileSync(store.path("task_artifact"), "utf8");
    await store.write("task_artifact", taskDraft("two"), { expectedRevision: 1 });
    expect(link).toHaveBeenCalledTimes(1);
    const kept = statSync(historyFile());
    const current = statSync(store.path("task_artifact"));
    expect(kept.ino).not.toBe(current.ino);
    expect(kept.nlink).toBe(1);
    writeFileSync(store.path("task_artifact"), "rewritten in place\n");
    expect(readFileSync(historyFile(), "utf8")).toBe(r1Bytes);
  });

  it("removes a link that does not hold the bytes the write was based on and writes those bytes", async () => {
    await store.write("task_artifact", taskDraft("one"), { expectedRevision: 0 });
    const r1Bytes = readFileSync(store.path("task_artifact"), "utf8");
    // The current file changes between the store's read and the link (another writer, a race).
    link.mockImplementationOnce(async (_source, target) => {
      writeFileSync(target, "other bytes\n");
    });
    await store.write("task_artifact", taskDraft("two"), { expectedRevision: 1 });
    expect(readFileSync(historyFile(), "utf8")).toBe(r1Bytes);
    expect(statSync(historyFile()).nlink).toBe(1);
  });

  it("writes the bytes where the file system makes no hard links", async () => {
    await store.write("task_artifact", taskDraft("one"), { expectedRevision: 0 });
    const r1Bytes = readFileSync(store.path("task_artifact"), "utf8");
    link.mockRejectedValueOnce(Object.assign(new Error("EPERM: operation not permitted"), { code: "EPERM" }));
    await store.write("task_artifact", taskDraft("two"), { expectedRevision: 1 });
    expect(readFileSync(historyFile(), "utf8")).toBe(r1Bytes);
    expect(await store.readRevision("task_artifact", 1)).toMatchObject({ revision: 1, title: "one" });
  });
});
