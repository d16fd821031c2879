import { rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { folderWith } from "../../test/support/test-repo.js";
import type { OpenTrace } from "../process/open-trace.js";
import { openedExposure, traceStatus, tracesSeamRuns } from "./seam-opened-files.js";

const FILES = {
  "src/slug.js": "x",
  "test/slug.test.js": "x",
  "test/cases/spaces.json": "{}",
  "test/other.test.js": "x",
  "__mocks__/slash.js": "x",
  "test/canary.devflow.test.js": "x",
};

const exposure = (dir: string, opened: string[], changed: string[], trace?: OpenTrace) =>
  openedExposure({
    checkoutDir: dir,
    trace: trace ?? { kind: "traced", files: opened.map((f) => join(dir, f)), written: [] },
    seamFiles: ["test/slug.test.js"],
    canaryFiles: ["test/canary.devflow.test.js"],
    changedFiles: changed,
  });

describe("openedExposure", () => {
  it("names a changed test data file or test file the run opened", () => {
    const dir = folderWith(FILES);
    const reason = exposure(
      dir,
      ["test/cases/spaces.json", "test/other.test.js", "src/slug.js"],
      ["src/slug.js", "test/cases/spaces.json", "test/other.test.js"],
    );
    expect(reason).toContain("test/cases/spaces.json, test/other.test.js");
    expect(reason).not.toContain("src/slug.js");
  });

  it("names a changed mock the run opened", () => {
    const dir = folderWith(FILES);
    expect(exposure(dir, ["__mocks__/slash.js"], ["__mocks__/slash.js"])).toContain("__mocks__/slash.js");
  });

  it("is null for program code, for the seam's and the canary's own files, for files the run did not open, and for deleted files", () => {
    const dir = folderWith(FILES);
    expect(exposure(dir, ["src/slug.js"], ["src/slug.js"])).toBeNull();
    expect(
      exposure(
        dir,
        ["test/slug.test.js", "test/canary.devflow.test.js"],
        ["test/slug.test.js", "test/canary.devflow.test.js"],
      ),
    ).toBeNull();
    expect(exposure(dir, ["src/slug.js"], ["test/other.test.js"])).toBeNull();
    expect(exposure(dir, ["test/gone.test.js"], ["test/gone.test.js"])).toBeNull();
  });

  // Review (stop 33): git and the trace both give a name that is not UTF-8 with U+FFFD, which no
  // file is called: the existence check took a changed case file the seam read as deleted.
  it("names a changed file whose name is not UTF-8", () => {
    const dir = folderWith(FILES);
    expect(exposure(dir, ["test/cases/\uFFFD.json"], ["test/cases/\uFFFD.json"])).toContain("\uFFFD.json");
  });

  it("matches the trace's real paths when the checkout is named through a symlink", () => {
    const dir = folderWith(FILES);
    const link = `${dir}-link`;
    symlinkSync(dir, link);
    onTestFinished(() => rmSync(link, { force: true }));
    const reason = openedExposure({
      checkoutDir: link,
      trace: { kind: "traced", files: [join(dir, "test/other.test.js")], written: [] },
      seamFiles: [],
      canaryFiles: [],
      changedFiles: ["test/other.test.js"],
    });
    expect(reason).toContain("test/other.test.js");
  });

  // Review (stop 34): the trace names the file the kernel opened, so a changed case file made a
  // link to a new program file (`src/spaces-data.json`, expecting the bug) was opened as that
  // program file, and a mocha and a vitest seam completed. Fix: a changed test path is also matched
  // by where it resolves, a file or anything beneath a linked folder.
  it("names a changed test path that is a link to the file the run opened, or a linked folder the run read in", () => {
    const dir = folderWith({ ...FILES, "src/spaces-data.json": "{}", "src/cases/one.json": "{}" });
    rmSync(join(dir, "test/cases/spaces.json"));
    symlinkSync("../../src/spaces-data.json", join(dir, "test/cases/spaces.json"));
    expect(
      exposure(dir, ["src/spaces-data.json"], ["src/spaces-data.json", "test/cases/spaces.json"]),
    ).toContain("test/cases/spaces.json");
    // The whole folder swapped for a link: git lists the link, and the files that were under it.
    rmSync(join(dir, "test/cases"), { recursive: true });
    symlinkSync("../src/cases", join(dir, "test/cases"));
    expect(exposure(dir, ["src/cases/one.json"], ["src/cases/one.json", "test/cases"])).toContain(
      "test/cases",
    );
    // A link the run did not read through stays out of it.
    expect(exposure(dir, ["src/slug.js"], ["test/cases"])).toBeNull();
  });

  it("fails closed on a broken trace and leaves an unavailable one to the shape checks", () => {
    const dir = folderWith(FILES);
    expect(exposure(dir, [], [], { kind: "broken", reason: "cut short" })).toContain(
      "could not be traced to its end (cut short)",
    );
    expect(
      exposure(dir, [], ["test/other.test.js"], { kind: "unavailable", reason: "no strace" }),
    ).toBeNull();
  });
});

describe("which seams are traced", () => {
  it("all but jest, whose haste map reads files it never loads (vitest too since stop 34)", () => {
    expect(
      ["mocha", "tape", "node-test", "pytest", "vitest", undefined].map((r) => tracesSeamRuns(r as never)),
    ).toEqual([true, true, true, true, true, true]);
    expect(tracesSeamRuns("jest")).toBe(false);
    expect(traceStatus(undefined, false).status).toBe("not_traced");
    expect(traceStatus({ kind: "unavailable", reason: "no strace" }, true)).toEqual({
      status: "unavailable",
      reason: "no strace",
    });
  });
});
