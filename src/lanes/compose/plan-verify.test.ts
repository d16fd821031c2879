import { describe, expect, it } from "vitest";
import type { Contract } from "../../artifacts/schemas/index.js";
import { seamFilePins } from "./plan-verify.js";

/** Only what seamFilePins reads of a contract: its seam files and the commit its task started from. */
const pinning = (base: string, ...files: [string, string | null][]) => ({
  contract: {
    base_commit: base,
    seam_files: files.map(([path, sha256]) => ({ path, sha256 })),
  } as unknown as Contract,
});

describe("seamFilePins (compose Verify's check of earlier tasks' seam files)", () => {
  it("pins each task's own seam files on the final tree", () => {
    expect(
      seamFilePins([pinning("c0", ["test/a.test.js", "h1"]), pinning("c1", ["test/b.test.js", "h2"])]),
    ).toEqual([
      [{ at: null, hashes: { "test/a.test.js": "h1" } }],
      [{ at: null, hashes: { "test/b.test.js": "h2" } }],
    ]);
  });

  // seam-pin-laundered-by-a-later-tasks-repin (review, session 16): only the last pin of a path
  // was checked, so T2's coder edited T1's seam file and T3's readiness pinned the edited bytes.
  // Each pin now holds up to the tree the next pinner started from (a readiness never changes an
  // existing file: the Observer's write_test_file only creates).
  it("checks an earlier pin of a re-pinned path on the tree the re-pinning task started from", () => {
    expect(
      seamFilePins([
        pinning("c0", ["test/a.test.js", "h1"], ["test/own.test.js", "h0"]),
        { contract: null },
        pinning("c2", ["test/a.test.js", "h3"]),
      ]),
    ).toEqual([
      [
        { at: "c2", hashes: { "test/a.test.js": "h1" } },
        { at: null, hashes: { "test/own.test.js": "h0" } },
      ],
      [],
      [{ at: null, hashes: { "test/a.test.js": "h3" } }],
    ]);
  });
});
