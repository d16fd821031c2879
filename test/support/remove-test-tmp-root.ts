import { rmSync } from "node:fs";

/**
 * vitest globalSetup: removes the run's temp root and pytest environment (vitest.config.ts) when the
 * run ends. A process a test left behind may still write there; rmSync retries and a leftover is not
 * a test failure.
 */
export function teardown(): void {
  remove(process.env.DEVFLOW_TEST_TMP_ROOT, "devflow-tests-");
  // The pytest-only environment (vitest.config.ts, ADR 0077).
  remove(process.env.DEVFLOW_TEST_PYTHON_ENV, "devflow-test-python-");
}

function remove(root: string | undefined, marker: string): void {
  if (!root?.includes(marker)) return;
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    process.stderr.write(`devflow tests: could not remove ${root}: ${(error as Error).message}\n`);
  }
}
