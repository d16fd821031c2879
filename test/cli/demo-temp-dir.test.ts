/**
 * Regression (issue 11, "Leftovers"): every `npm run demo` / `devflow demo` left a `devflow-XXXX`
 * temp dir with the sample repo, its worktrees and artifacts. Cause: the demo made the repo with
 * createFixtureRepo in the OS temp dir and never removed it. Fix: the demo removes that dir when
 * it ends and says so; `--keep` keeps it and says where.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cli } from "../support/cli.js";

const saved = process.env.TMPDIR;
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "devflow-demo-tmp-"));
  // os.tmpdir() reads TMPDIR on every call: the demo's sample repo and the coder's scratch go here.
  process.env.TMPDIR = tmp;
});

afterAll(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
});

it("devflow demo completes and leaves no temp dir behind, and says it removed the sample repo", async () => {
  const run = await cli("demo");
  expect(run.code).toBe(0);
  expect(run.err).toMatch(/^verdict {3}completed$/m);
  expect(run.err).toMatch(/^Removed the sample repo .*\(devflow demo --keep keeps it to look at\)\.$/m);
  expect(readdirSync(tmp).filter((e) => e.startsWith("devflow-"))).toEqual([]);
}, 300_000);
