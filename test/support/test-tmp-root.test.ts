// Pins the per-run temp root (vitest.config.ts): before it, every run left its test repos, clones
// and overlay uppers in /tmp (hundreds of MB a run). Cause: tempDir() and the CLI's scratch use
// os.tmpdir() and nothing removed them. Fix: TMPDIR points at one root per run, removed by the
// globalSetup teardown (test/support/remove-test-tmp-root.ts).
import { statSync } from "node:fs";
import { tmpdir } from "node:os";
import { expect, it } from "vitest";
import { tempDir } from "./lane-harness.js";

it("test temp dirs go under the run's root, which any uid can use like /tmp", () => {
  const root = process.env.DEVFLOW_TEST_TMP_ROOT;
  expect(root).toMatch(/devflow-tests-/);
  expect(tmpdir()).toBe(root);
  expect(tempDir().startsWith(`${root}/`)).toBe(true);
  expect(statSync(root as string).mode & 0o7777).toBe(0o1777);
});
