import { afterAll, beforeAll } from "vitest";
import { resetMountProbe } from "../../src/process/mount-namespace.js";

/**
 * Runs the enclosing file (or `describe`) with the coder's mount namespace off
 * (`DEVFLOW_NO_MOUNT_NAMESPACE=1`, ADR 0025): for attacks that go to the user's checkout or
 * devflow's task dir by path, which the namespace prevents outright where it works. With it off
 * the tests pin the fallback every platform has: detection by the fingerprint and the tamper
 * checks. The probe is reset both ways so the cached answer follows the variable.
 */
export function withMountNamespaceOff(): void {
  let before: string | undefined;
  beforeAll(() => {
    before = process.env.DEVFLOW_NO_MOUNT_NAMESPACE;
    process.env.DEVFLOW_NO_MOUNT_NAMESPACE = "1";
    resetMountProbe();
  });
  afterAll(() => {
    if (before === undefined) delete process.env.DEVFLOW_NO_MOUNT_NAMESPACE;
    else process.env.DEVFLOW_NO_MOUNT_NAMESPACE = before;
    resetMountProbe();
  });
}
