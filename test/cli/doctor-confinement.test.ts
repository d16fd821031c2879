/**
 * `devflow doctor` says what confinement runs get on this machine (ADR 0021, 0025, 0068, 0069):
 * before, a user could not tell whether their runs were confined or only checked afterwards (an
 * ordinary user without user namespaces, `DEVFLOW_NO_MOUNT_NAMESPACE=1`, a non-Linux machine)
 * without reading ADRs. The real bin (built), real probes; as root and as an unused uid.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { mountNamespaceWorks } from "../../src/process/mount-namespace.js";
import { runDevflow } from "../faults/cli-process.js";
import { tempDir } from "../support/lane-harness.js";
import { canDropToAnotherUid, nodeAsUid, unusedUid } from "../support/scan-as-user.js";

async function doctor(env: Record<string, string> = {}) {
  const isolated = { DEVFLOW_HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), ...env };
  const [json, text] = await Promise.all([
    runDevflow(["doctor", "--json"], isolated),
    runDevflow(["doctor"], isolated),
  ]);
  return { confinement: JSON.parse(json.stdout).confinement, text: text.stdout };
}

const rootWithNamespaces = process.getuid?.() === 0 && mountNamespaceWorks();

describe.runIf(rootWithNamespaces)("devflow doctor: what confinement runs get", () => {
  it("as root with namespaces: the PID namespace, the mount plan as root, /run hidden, reuse on", async () => {
    const { confinement, text } = await doctor();
    expect(confinement).toEqual({
      pid_namespace: true,
      mount_namespace: { mode: "root", why_not: null },
      run_hidden: true,
      coder_checkout_reuse: true,
    });
    expect(text).toContain("Confinement (");
    expect(text).toMatch(/✓ {2}mount plan {3}as root: \.devflow hidden/);
    expect(text).toMatch(/✓ {2}\/run {9}hidden/);
  });

  it("DEVFLOW_NO_MOUNT_NAMESPACE=1: no plan, says why and that changes are only detected", async () => {
    const { confinement, text } = await doctor({ DEVFLOW_NO_MOUNT_NAMESPACE: "1" });
    expect(confinement.mount_namespace).toEqual({
      mode: null,
      why_not: "turned off by DEVFLOW_NO_MOUNT_NAMESPACE=1",
    });
    expect(confinement.run_hidden).toBe(false);
    expect(text).toContain(
      "!  mount plan   none (turned off by DEVFLOW_NO_MOUNT_NAMESPACE=1): changes to your checkout and .devflow are detected, not prevented",
    );
    expect(text).not.toContain("/run ");
  });

  it("DEVFLOW_EXPOSE_RUN=1: /run shown, with what that means", async () => {
    const { confinement, text } = await doctor({ DEVFLOW_EXPOSE_RUN: "1" });
    expect(confinement.run_hidden).toBe(false);
    expect(text).toContain("!  /run         shown as it is (DEVFLOW_EXPOSE_RUN=1)");
  });

  it("DEVFLOW_NO_PID_NAMESPACE=1: no PID namespace, no plan (it brings one), no reuse", async () => {
    const { confinement, text } = await doctor({ DEVFLOW_NO_PID_NAMESPACE: "1" });
    expect(confinement).toEqual({
      pid_namespace: false,
      mount_namespace: { mode: null, why_not: "turned off by DEVFLOW_NO_PID_NAMESPACE=1" },
      run_hidden: false,
      coder_checkout_reuse: false,
    });
    expect(text).toContain("!  processes    no PID namespace");
    expect(text).toContain("not reused (no PID namespace)");
  });
});

describe.runIf(
  canDropToAnotherUid() &&
    existsSync(new URL("../../dist/src/process/confinement-check.js", import.meta.url)),
)("devflow doctor as an ordinary user (ADR 0068)", () => {
  it("reports the mount plan inside a user namespace", () => {
    const module = new URL("../../dist/src/process/confinement-check.js", import.meta.url).href;
    const out = JSON.parse(
      nodeAsUid(
        unusedUid(9),
        `const m = await import(${JSON.stringify(module)}); console.log(JSON.stringify(m.checkConfinement()));`,
      ),
    );
    expect(out).toEqual({
      pid_namespace: true,
      mount_namespace: { mode: "user", why_not: null },
      run_hidden: true,
      coder_checkout_reuse: true,
    });
  });
});
