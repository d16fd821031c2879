/**
 * overlay-upper-left-unremovable-by-a-non-utf8-folder (session-25 review of ADR 0068 item 6). As an
 * ordinary user devflow cannot list or remove a directory of the upper layer that the run left mode
 * 000; `removeOverlayUpper` and `checkoutOverlayChanges` first give the owner rwx on every
 * directory. A run that names such a folder with a byte that is not UTF-8 (`x\xff`, `mkdir -m 0`)
 * defeated that: the decoded name matched no directory, the chmod failed quietly, reading failed
 * (closed) and the removal threw, so the layer stayed in devflow's home and every later run with
 * that log path failed at its start. Fix: the chmod walk goes by bytes too.
 * Real processes: devflow's BUILT modules as an unused uid (setpriv), the run in its mount plan.
 *
 *     npm run build && npx vitest run test/adversarial/review/overlay-upper-left-unremovable-attack25.test.ts
 */
import { existsSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { asUser, confinedRunAsUser, userRepo } from "../../support/mount-plan-as-user.js";
import { canDropToAnotherUid, unusedUid } from "../../support/scan-as-user.js";

const uid = unusedUid(7) + 4; // range 7 is this session's review; +4 keeps off its other files' uids
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * `script` run behind the checkout overlay of a fresh repo (as the uid, user mode), then devflow's
 * reading of the layer (the changes, or the error code) and its removal (or the error code).
 */
function runThenReadAndRemove(script: string): {
  output: string;
  read: unknown;
  removal: string;
  left: boolean;
} {
  const r = userRepo(uid, made);
  const run = confinedRunAsUser(uid, r, script, { overlayUpper: r.upper });
  expect(run.mode).toBe("user");
  const upper = JSON.stringify(r.upper);
  const after = asUser(
    uid,
    `mn.mountNamespaceWorks();
     let read;
     try { read = mn.checkoutOverlayChanges(${upper}, ${JSON.stringify(r.checkout)}); } catch (e) { read = e.code; }
     let removal = "removed";
     try { mn.removeOverlayUpper(${upper}); } catch (e) { removal = e.code; }
     return { read, removal, left: (await import("node:fs")).existsSync(${upper}) };`,
  ) as { read: unknown; removal: string; left: boolean };
  return { output: run.output, ...after };
}

describe.runIf(
  canDropToAnotherUid() &&
    existsSync(new URL("../../../dist/src/process/mount-namespace.js", import.meta.url)),
)("a verification run leaves a mode-000 folder with a non-UTF-8 name in the upper layer (ADR 0068)", () => {
  it("devflow still reads the layer (a tracked change named) and removes it", () => {
    const { output, ...after } = runThenReadAndRemove(
      `echo changed > src/a.ts; d=$(printf 'x\\377'); mkdir -m 0 "$d" && mkdir -m 0 "src/$d" && echo made`,
    );
    expect(output).toContain("made");
    expect(after).toEqual({ read: ["src/a.ts"], removal: "removed", left: false });
  });

  // overlay-upper-left-unremovable-past-path-max: folders nested past PATH_MAX (the last mode 000)
  // stopped node's removal at ENAMETOOLONG. Reading such a layer still fails (closed); removing it
  // now goes through GNU chmod/rm, which walk by descriptors.
  it("a layer nested deeper than PATH_MAX: reading fails closed, the layer is still removed", () => {
    // Python: a shell's cd builds the whole path and stops at PATH_MAX; chdir by name does not.
    const { output, ...after } = runThenReadAndRemove(`env -i /usr/bin/python3 -c 'import os
for i in range(450):
    os.mkdir("dddddddddd"); os.chdir("dddddddddd")
os.mkdir("x", 0); print("deep", i + 1)'`);
    expect(output).toContain("deep 450");
    expect(after).toEqual({ read: "ENAMETOOLONG", removal: "removed", left: false });
  });
});
