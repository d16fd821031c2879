/**
 * Session-25 review of ADR 0068 (the verification overlay as an ordinary user, markers read from
 * `user.overlay.*`): a verification run plants overlayfs's own markers through the merged view to
 * hide a change to a tracked file or to invent deletions (a false rejection). Held: the kernel
 * stores a `user.overlay.*` name a process sets through the overlay escaped
 * (`user.overlay.overlay.opaque`; older kernels refuse it), `trusted.*` needs a capability the run
 * does not have, a whiteout cannot be made by hand (mknod 0:0 refused without CAP_MKNOD), and
 * devflow's reader (checkoutOverlayChanges) reports every non-directory entry of the upper layer
 * that the checkout holds, so a marker could only add to what it reports, never hide.
 * Real processes: devflow's BUILT modules as an unused uid (setpriv), /usr/bin/python3 for xattrs.
 *
 *     npm run build && npx vitest run test/adversarial/review/overlay-markers-planted-by-a-run-attack25.test.ts
 */
import { existsSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { asUser, confinedRunAsUser, userRepo } from "../../support/mount-plan-as-user.js";
import { canDropToAnotherUid, unusedUid } from "../../support/scan-as-user.js";

const uid = unusedUid(7);
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Python that sets each `name` on each path and prints planted/refused per try. */
const plant = (tries: [string, string][]) =>
  `/usr/bin/python3 -c 'import os
for p, n in ${JSON.stringify(tries)}:
    try:
        os.setxattr(p, n, b"y"); print("planted", p, n)
    except OSError as e:
        print("refused", p, n, e.errno)
try:
    os.mknod("src/b.ts", 0o20644, os.makedev(0, 0)); print("planted whiteout")
except OSError as e:
    print("refused whiteout", e.errno)'`;

function changesAfter(script: string): { output: string; changes: string[] } {
  const r = userRepo(uid, made);
  const run = confinedRunAsUser(uid, r, script, { overlayUpper: r.upper });
  expect(run.mode).toBe("user");
  const changes = asUser(
    uid,
    `mn.mountNamespaceWorks(); return mn.checkoutOverlayChanges(${JSON.stringify(r.upper)}, ${JSON.stringify(r.checkout)});`,
  ) as string[];
  return { output: run.output, changes };
}

describe.runIf(
  canDropToAnotherUid() &&
    existsSync(new URL("../../../dist/src/process/mount-namespace.js", import.meta.url)),
)("a verification run plants overlay markers (as an ordinary user, ADR 0068)", () => {
  it("markers on changed files and their folder hide nothing: every changed tracked file is reported", () => {
    const { output, changes } = changesAfter(
      [
        "echo after > tracked.txt",
        "echo changed > src/a.ts",
        "rm src/b.ts",
        plant([
          ["src", "user.overlay.opaque"],
          ["src", "trusted.overlay.opaque"],
          ["tracked.txt", "user.overlay.whiteout"],
          ["tracked.txt", "user.overlay.metacopy"],
          ["tracked.txt", "user.overlay.redirect"],
          ["src/a.ts", "user.overlay.origin"],
        ]),
      ].join("; "),
    );
    // The attack really ran: each try answered (planted, i.e. escaped by the kernel, or refused).
    expect(output.match(/^(planted|refused) /gm)).toHaveLength(7);
    expect(output).toContain("refused src trusted.overlay.opaque");
    expect(output).toContain("refused whiteout");
    expect(changes).toEqual(["src/a.ts", "src/b.ts", "tracked.txt"]);
  });

  it("an opaque marker planted on a folder the run only added to invents no deletion (no false rejection)", () => {
    const { output, changes } = changesAfter(
      ["echo new > src/c.ts", plant([["src", "user.overlay.opaque"]])].join("; "),
    );
    expect(output).toMatch(/^(planted|refused) src user\.overlay\.opaque/m);
    expect(changes).toEqual([]);
  });
});
