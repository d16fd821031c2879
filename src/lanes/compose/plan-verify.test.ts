import { describe, expect, it } from "vitest";
import type { Contract } from "../../artifacts/schemas/index.js";
import { seamFilePins } from "./plan-verify.js";

/** Only what seamFilePins reads of a contract. */
const pinning = (...files: [string, string | null][]) => ({
  contract: { seam_files: files.map(([path, sha256]) => ({ path, sha256 })) } as unknown as Contract,
});

describe("seamFilePins (compose Verify's check of earlier tasks' seam files)", () => {
  it("pins each task's own seam files", () => {
    expect(seamFilePins([pinning(["test/a.test.js", "h1"]), pinning(["test/b.test.js", "h2"])])).toEqual([
      { "test/a.test.js": "h1" },
      { "test/b.test.js": "h2" },
    ]);
  });

  it("checks a path re-pinned by a later task with the later task's hash (its readiness may add to the file)", () => {
    expect(
      seamFilePins([
        pinning(["test/a.test.js", "h1"]),
        { contract: null },
        pinning(["test/a.test.js", "h3"]),
      ]),
    ).toEqual([{}, {}, { "test/a.test.js": "h3" }]);
  });
});
