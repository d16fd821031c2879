import { rmSync } from "node:fs";

/**
 * vitest globalSetup: removes the run's temp root (vitest.config.ts) when the run ends. A process a
 * test left behind may still write there; rmSync retries and a leftover is not a test failure.
 */
export function teardown(): void {
  const root = process.env.DEVFLOW_TEST_TMP_ROOT;
  if (!root?.includes("devflow-tests-")) return;
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    process.stderr.write(`devflow tests: could not remove ${root}: ${(error as Error).message}\n`);
  }
}
