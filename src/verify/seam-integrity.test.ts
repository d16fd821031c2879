import { mkdir, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SeamIntegrityEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import { hashSeamFiles, runSeamIntegrityVerifier } from "./seam-integrity.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-integrity-"));
  await mkdir(join(dir, "test", "repro"), { recursive: true });
  await writeFile(join(dir, "test", "csv.test.mjs"), "assert(trim(' a ') === 'a')\n");
  await writeFile(join(dir, "test", "repro", "one.mjs"), "one\n");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const verify = async (hashes: Record<string, string | null>) =>
  SeamIntegrityEnvelope.parse(
    await runSeamIntegrityVerifier({ worktree: dir, seamFileHashes: hashes, attemptId: "attempt-001" }),
  );

describe("seam integrity", () => {
  it("hashes files with sha256 and a missing file as null", async () => {
    const h = await hashSeamFiles(dir, ["test/csv.test.mjs", "test/absent.mjs"]);
    expect(h["test/csv.test.mjs"]).toMatch(/^[0-9a-f]{64}$/);
    expect(h["test/absent.mjs"]).toBeNull();
  });

  it("passes when the seam files are untouched", async () => {
    const e = await verify(await hashSeamFiles(dir, ["test/csv.test.mjs", "test/repro"]));
    expect(e.overall_result).toBe("pass");
    expect(e.summary).toContain("2 seam file(s) are unchanged");
  });

  // ADR 0074: evidence the scope names exactly is not fingerprinted; a change to it is named, not failed.
  it("names the scope-named evidence the attempt changed, and only that", async () => {
    const e = SeamIntegrityEnvelope.parse(
      await runSeamIntegrityVerifier({
        worktree: dir,
        seamFileHashes: await hashSeamFiles(dir, ["test/csv.test.mjs"]),
        scopeNamed: ["test/cases/spaces.json", "test/setup.js"],
        changedFiles: ["src/slug.js", "test/cases/spaces.json"],
        attemptId: "attempt-001",
      }),
    );
    expect(e.overall_result).toBe("pass");
    expect(e.native_payload).toMatchObject({ scope_named_changed: ["test/cases/spaces.json"] });
    expect((await verify({})).native_payload).not.toHaveProperty("scope_named_changed");
  });

  // Stop 29: paths pinned absent (a conftest.py pytest would load) are not counted as files.
  it("says how many paths pinned absent are still absent, and fails naming one created", async () => {
    const hashes = await hashSeamFiles(dir, ["test/csv.test.mjs", "test/conftest.py", "conftest.py"]);
    const e = await verify(hashes);
    expect(e.summary).toBe(
      "all 1 seam file(s) are unchanged, and the 2 path(s) pinned absent are still absent",
    );
    await writeFile(join(dir, "test", "conftest.py"), "import slug\n");
    const created = await verify(hashes);
    expect(created.overall_result).toBe("fail");
    expect(created.native_payload).toMatchObject({ created: ["test/conftest.py"] });
    await unlink(join(dir, "test", "conftest.py"));
  });

  it("fails naming a seam test the coder edited to make it pass", async () => {
    const hashes = await hashSeamFiles(dir, ["test/csv.test.mjs"]);
    await writeFile(join(dir, "test", "csv.test.mjs"), "// assert removed\n");
    const e = await verify(hashes);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("test/csv.test.mjs (edited)");
    expect(e.native_payload).toMatchObject({ edited: ["test/csv.test.mjs"] });
  });

  it("fails naming a deleted seam file", async () => {
    const hashes = await hashSeamFiles(dir, ["test/csv.test.mjs"]);
    await unlink(join(dir, "test", "csv.test.mjs"));
    const e = await verify(hashes);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("test/csv.test.mjs (deleted)");
  });

  it("notices a file added to a seam folder", async () => {
    const hashes = await hashSeamFiles(dir, ["test/repro"]);
    await writeFile(join(dir, "test", "repro", "skip-all.mjs"), "process.exit(0)\n");
    const e = await verify(hashes);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("test/repro (edited)");
  });

  it("fails when a seam file that was absent appears", async () => {
    expect((await verify({ "test/new.mjs": null })).overall_result).toBe("pass");
    await writeFile(join(dir, "test", "new.mjs"), "x\n");
    const after = await verify({ "test/new.mjs": null });
    expect(after.overall_result).toBe("fail");
    expect(after.summary).toContain("test/new.mjs (created");
  });

  it("passes with nothing to protect when the seam has no files", async () => {
    const e = await verify({});
    expect(e.overall_result).toBe("pass");
    expect(e.summary).toContain("no files to protect");
  });

  it("reports an error for a seam path outside the worktree", async () => {
    const e = await verify({ "../outside.txt": null });
    expect(e.overall_result).toBe("error");
    expect(e.summary).toContain("outside the worktree");
  });
});
