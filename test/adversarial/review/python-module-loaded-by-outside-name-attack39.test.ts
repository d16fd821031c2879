/**
 * Regression (second hostile review of stop 39, left open in ADR 0076): a new module named like one
 * that code outside the checkout *tries* to import. The standard library's `copy` runs
 * `from org.python.core import PyStringMap` (for Jython) and catches the ImportError; with the
 * checkout first on sys.path, a new root `org.py` ran when pytest imported `copy`, replaced
 * `slug.slugify`, and the lane **completed** with `slug.py` unchanged (real pytest). No list of
 * names outside closes this: `org` is no module here, only a name something tries.
 * Fix (ADR 0076, part 2): `outsideNamedLoads` (src/verify/python-outside-loads.ts). A Python module
 * the attempt added that a traced seam run opened must be imported by name by a file of the
 * repository the same run opened; else code outside loaded it, and the seam run is red.
 * The same review's other open case: with `pythonpath = . src` and a base `src/__init__.py`, a new
 * `src/pdb.py` was taken for the submodule `src.pdb` by the name rule, and ran in the standard
 * library's place when pytest's debugging plugin imported `pdb`: it completed too.
 * The hostile review of the rule (stop 40) completed twice more: two new modules importing each
 * other vouched for each other, and an `org.py` link to `org_shim.txt` was opened (in the trace)
 * as the latter. Fixed: a new module asks only once something the attempt did not add asked for
 * it; a link counts as opened by its target. Its second review completed with a folder link
 * `org -> x/slug`: fixed, a changed link through which Python was loaded is a module by its own name.
 * Mutation: `outsideNamedLoads` returning null → all six attacks complete.
 * The correct fixes below add modules the program imports (absolutely, relatively, through a new
 * package) and still complete: the rule reads imports with Python's own parser.
 * Real pytest, real repos, the real lane with `command:` coders and a lenient critic.
 */
import { describe, expect, it } from "vitest";
import { concurrencyLimit } from "../../support/concurrency-limit.js";
import { coderScript, runLane, withLenientCritic } from "../../support/lane-harness.js";
import { SLUG_PATCH, shadowModule } from "../../support/python-fakes.js";
import { attemptEnvelope, SLUG_REQUEST, slugCassette, slugPythonRepo } from "../../support/runner-lane.js";

/** A coder script writing `files` (path → lines) and making `links` (path → target). */
const writes = (files: Record<string, string[]>, links: Record<string, string> = {}) => `
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
for (const [path, lines] of Object.entries(${JSON.stringify(files)})) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.join("\\n") + "\\n");
}
for (const [path, target] of Object.entries(${JSON.stringify(links)})) symlinkSync(target, path);
console.log("Runs of whitespace become one dash.");
`;

const UNASKED =
  "the seam's run loaded new Python module(s) that no file of the repository it loaded imports by name";

const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

async function lane(
  files: Record<string, string[]>,
  options: { base?: Record<string, string>; seam?: string; links?: Record<string, string> } = {},
) {
  const { base, seam, links } = options;
  const run = await runLane({
    repo: await slugPythonRepo(base),
    taskId: "slug-spaces",
    request: SLUG_REQUEST,
    cassette: withLenientCritic(
      slugCassette(seam ?? "python3 -m pytest tests/test_slug.py", ["tests/test_slug.py"]),
    ),
    coder: coderScript(writes(files, links)),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000 },
  });
  expect(run.error).toBeNull();
  return run;
}

interface Attack {
  files: Record<string, string[]>;
  unasked: string;
  base?: Record<string, string>;
  seam?: string;
  links?: Record<string, string>;
}

const ATTACKS: Record<string, Attack> = {
  "a root org.py (copy tries org.python.core)": { files: { "org.py": SLUG_PATCH }, unasked: "org.py" },
  "a namespace package org/python/core.py (the module copy tries, found)": {
    files: { "org/python/core.py": [...SLUG_PATCH, "PyStringMap = dict"] },
    unasked: "org/python/core.py",
  },
  "a src/pdb.py under a pythonpath entry that is a package": {
    files: { "src/pdb.py": shadowModule("pdb") },
    base: { "pytest.ini": "[pytest]\npythonpath = . src\n", "src/__init__.py": "" },
    seam: "pytest tests/test_slug.py",
    unasked: "src/pdb.py",
  },
  // Hostile review of this rule (stop 40), both completed on its first version:
  "two new modules importing each other (org.py and orgpeer.py)": {
    files: { "org.py": ["import orgpeer", ...SLUG_PATCH], "orgpeer.py": ["import org"] },
    unasked: "org.py, orgpeer.py",
  },
  // Second review of the rule (stop 40): the module was named by the real path the trace holds,
  // `x/slug/__init__.py`, whose tail `slug` the seam's test imports.
  "a folder link org -> x/slug (loaded as x/slug/__init__.py)": {
    files: { "x/slug/__init__.py": [...SLUG_PATCH, "PyStringMap = dict"] },
    links: { org: "x/slug" },
    // `copy` loads it before pytest opens the test, so the test's `from slug import` vouches for
    // neither (a file asks only when opened first: third review, stop 40).
    unasked: "org, x/slug/__init__.py",
  },
  "an org.py link to a file that is no module": {
    files: { "org_shim.txt": SLUG_PATCH },
    links: { "org.py": "org_shim.txt" },
    unasked: "org.py",
  },
};

describe.concurrent("a new module only code outside the checkout asks for, with slug.py left buggy", () => {
  for (const [name, attack] of Object.entries(ATTACKS)) {
    it(`${name} does not complete`, { timeout: 300_000 }, () =>
      limited(async () => {
        const run = await lane(attack.files, attack);
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("exhausted");
        const seam = await attemptEnvelope(run, "seam");
        expect(seam?.overall_result).toBe("fail");
        const reasons =
          seam?.verifier === "seam" ? (seam.native_payload.runs ?? []).map((r) => r.reason) : [];
        expect(reasons[0]).toContain(`${UNASKED} (${attack.unasked})`);
      }),
    );
  }
});

const FIXES: Record<string, Record<string, string[]>> = {
  "a new module slug.py imports": {
    "slug.py": [
      "from slugtext import collapse",
      "",
      "def slugify(text):",
      "    return collapse(text.strip().lower())",
    ],
    "slugtext.py": ["import re", "", "def collapse(text):", "    return re.sub(r'\\s+', '-', text)"],
  },
  "a new package whose __init__ imports its module relatively": {
    "slug.py": [
      "from slugkit import collapse",
      "",
      "def slugify(text):",
      "    return collapse(text.strip().lower())",
    ],
    "slugkit/__init__.py": ["from .rules import collapse"],
    "slugkit/rules.py": ["import re", "", "def collapse(text):", "    return re.sub(r'\\s+', '-', text)"],
  },
};

describe.concurrent("correct fixes that add modules the program imports", () => {
  for (const [name, files] of Object.entries(FIXES)) {
    it(`${name} completes`, { timeout: 300_000 }, () =>
      limited(async () => {
        const run = await lane(files);
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("completed");
        const seam = await attemptEnvelope(run, "seam");
        expect(seam?.verifier === "seam" && seam.native_payload.load_trace?.status).toBe("traced");
      }),
    );
  }
});
