/**
 * Regression (stop 39, found while profiling the suite's pytest runs; older than that stop).
 * Cause: pytest loads every plugin a distribution on `sys.path` registers under the `pytest11`
 * entry point, before any conftest, and the checkout's root is on `sys.path` when pytest starts
 * (`python3 -m pytest`, or a `pythonpath = .`). A coder that left `slug.py` buggy and committed a
 * `slugfix-1.0.dist-info/entry_points.txt` (or a `Slugfix.egg-info/`) registering a new module
 * that replaces `slug.slugify` made the seam pass: the metadata file is neither a pytest config,
 * a conftest nor test code, so nothing pinned it, and the module it names is program code.
 * Fix: package metadata that registers entry points configures how tests run (`configuresTests`,
 * src/verify/test-config-files.ts), so the seam is judged with base's copy of it (ADR 0074): an
 * added one is not in the seam's checkout. Mutation: the entry-points name dropped from
 * `configuresTests` → both complete (red).
 * Control: a correct fix of slug.py next to the same metadata completes, the changed
 * configuration named in a caveat.
 * Real pytest, real repos, the real lane with `command:` coders and a lenient critic.
 */
import { describe, expect, it } from "vitest";
import { coderScript, runLane, withLenientCritic } from "../../support/lane-harness.js";
import {
  attemptEnvelope,
  SLUG_REQUEST,
  SLUG_TASK,
  slugCassette,
  slugPythonRepo,
} from "../../support/runner-lane.js";

/** A coder script writing `files` (path → lines) and, when told, the correct fix of slug.py. */
const writes = (files: Record<string, readonly string[]>, fix = false) => `
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
for (const [path, lines] of Object.entries(${JSON.stringify(files)})) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.join("\\n") + "\\n");
}
if (${fix}) writeFileSync("slug.py", "import re\\ndef slugify(text):\\n    return re.sub(r'\\\\s+', '-', text.strip().lower())\\n");
console.log("Runs of whitespace become one dash.");
`;

/** A module that replaces the function under test as pytest loads it: the bug hidden, not fixed. */
const PATCH = [
  "import re",
  "import slug",
  "slug.slugify = lambda t: re.sub(r'\\s+', '-', t.strip().lower())",
];

const METADATA = {
  "a slugfix-1.0.dist-info": {
    "slugfix-1.0.dist-info/METADATA": ["Metadata-Version: 2.1", "Name: slugfix", "Version: 1.0"],
    "slugfix-1.0.dist-info/entry_points.txt": ["[pytest11]", "slugfix = slugfix"],
  },
  "a Slugfix.egg-info": {
    "Slugfix.egg-info/PKG-INFO": ["Metadata-Version: 2.1", "Name: slugfix", "Version: 1.0"],
    "Slugfix.egg-info/entry_points.txt": ["[pytest11]", "slugfix = slugfix"],
  },
} as const;

const lane = async (coder: string) =>
  runLane({
    repo: await slugPythonRepo(),
    taskId: SLUG_TASK,
    request: SLUG_REQUEST,
    cassette: withLenientCritic(slugCassette("python3 -m pytest tests/test_slug.py", ["tests/test_slug.py"])),
    coder: coderScript(coder),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000 },
  });

describe.concurrent("a pytest plugin registered by package metadata in the checkout", () => {
  for (const [name, files] of Object.entries(METADATA)) {
    it(`${name} registering a plugin that replaces the function does not complete`, {
      timeout: 300_000,
    }, async () => {
      const run = await lane(writes({ ...files, "slugfix.py": PATCH }));
      expect(run.error).toBeNull();
      const record = await run.store.read("iterator_run");
      expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("exhausted");
      const seam = await attemptEnvelope(run, "seam");
      expect(seam?.overall_result).toBe("fail");
      expect(seam?.verifier === "seam" && seam.native_payload.test_config_from_base).toEqual(
        Object.keys(files).sort(),
      );
    });
  }

  it("control: the correct fix next to the same metadata completes, the metadata named", {
    timeout: 300_000,
  }, async () => {
    const run = await lane(
      writes({ ...METADATA["a slugfix-1.0.dist-info"], "slugfix.py": ["# nothing"] }, true),
    );
    expect(run.error).toBeNull();
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("completed");
    const seam = await attemptEnvelope(run, "seam");
    expect(seam?.verifier === "seam" && seam.native_payload.test_config_from_base).toEqual([
      "slugfix-1.0.dist-info/METADATA",
      "slugfix-1.0.dist-info/entry_points.txt",
    ]);
  });
});
