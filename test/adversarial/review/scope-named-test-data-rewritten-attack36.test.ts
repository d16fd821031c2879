/**
 * Regression (second review of stop 35's change; older than it). Cause: test data the seam's test
 * reads is fingerprinted with the seam, except a file the task's scope names exactly (the request
 * may be about it). A coder rewrote that file to expect the bug and left src/slug.js buggy; the lane
 * completed and the verdict said nothing of it. Fix (ADR 0074): the contract pins which of the
 * seam's evidence the scope leaves editable (`seam_files_scope_named`), seam integrity names the
 * ones the attempt changed, and the gate makes that a caveat of the pass: a completed verdict then
 * says the seam shows the code meets the data as the attempt changed it. Control: the correct fix
 * with the data untouched completes with no such caveat.
 * Real mocha, a real repo, the real lane with `command:` coders and a lenient critic.
 */
import { describe, expect, it } from "vitest";
import { runnerRepoWith, seamLane, writingCoder } from "../../support/runner-lane.js";

const SEAM = "npx mocha test/spaces.test.js";
const SEAM_TEST = [
  'const assert = require("node:assert");',
  'const { slugify } = require("../src/slug.js");',
  'const { input, want } = require("./cases/spaces.json");',
  'describe("spaces", () => { it("collapses runs of spaces", () => assert.strictEqual(slugify(input), want)); });',
  "",
].join("\n");

async function lane(coder: string) {
  const repo = await runnerRepoWith("mocha", {
    "test/spaces.test.js": SEAM_TEST,
    "test/cases/spaces.json": '{ "input": "Hello  World", "want": "hello-world" }\n',
  });
  const run = await seamLane(repo, SEAM, ["test/spaces.test.js"], coder, ["src/", "test/cases/spaces.json"]);
  expect(run.error).toBeNull();
  return run.store.read("iterator_run");
}

const CAVEAT =
  "the seam's verdict rests on test code or data the scope names and the attempt changed, so it shows the code meets them as changed: test/cases/spaces.json";

describe("test data the scope names exactly, rewritten to expect the bug", () => {
  it("is named in the verdict of the run it completes", { timeout: 300_000 }, async () => {
    const record = await lane(
      writingCoder({ "test/cases/spaces.json": ['{ "input": "Hello  World", "want": "hello--world" }'] }),
    );
    expect(record?.readiness?.contract?.seam_files_scope_named).toEqual(["test/cases/spaces.json"]);
    expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("completed");
    expect(record?.terminal?.gate?.caveats).toContainEqual({ verifier: "seam_integrity", caveat: CAVEAT });
  });

  it("the correct fix with the data untouched completes without that caveat", {
    timeout: 300_000,
  }, async () => {
    const record = await lane(writingCoder({}, true));
    expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("completed");
    expect(record?.terminal?.gate?.caveats.map((c) => c.caveat)).not.toContain(CAVEAT);
  });
});
