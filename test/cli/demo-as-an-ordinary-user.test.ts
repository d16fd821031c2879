/**
 * The demo end to end as an ordinary user (ADR 0068): devflow run by a uid without privilege now
 * runs its coders and verification commands in a mount namespace made inside a user namespace.
 * The pieces are tested as such a uid in test/adversarial/mount-namespace-as-ordinary-user.test.ts;
 * this runs the whole lane through the built bin as that uid, so a step of the confined path that
 * works as root but not as a user (a probe that passes but a real run that cannot mount, clean up
 * or read its overlay) ends the run in something other than `completed`.
 */
import { spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";
import { asUid, canDropToAnotherUid, nodeAsUid, unusedUid } from "../support/scan-as-user.js";

const UID = unusedUid(6);
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh dir owned by UID. */
function usersDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  chownSync(dir, UID, UID);
  return dir;
}

describe.runIf(canDropToAnotherUid())("devflow demo as an ordinary user", () => {
  it("completes with the coder and the verification commands confined in a user namespace", () => {
    // The premise: as that uid the mount namespace works (else this would test the old path).
    const works = nodeAsUid(
      UID,
      `const m = await import(${JSON.stringify(new URL("../../dist/src/process/mount-namespace.js", import.meta.url).href)}); console.log(m.mountNamespaceMode());`,
    );
    expect(works).toBe("user");
    const home = usersDir("devflow-demo-user-home-");
    const tmp = usersDir("devflow-demo-user-tmp-");
    const run = spawnSync(
      "setpriv",
      [
        ...asUid(UID),
        "env",
        "-i",
        `PATH=${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
        `HOME=${home}`,
        `TMPDIR=${tmp}`,
        process.execPath,
        DEVFLOW_BIN,
        "demo",
      ],
      { encoding: "utf8", timeout: 240_000 },
    );
    expect(run.stderr).toMatch(/^verdict {3}completed$/m);
    expect(run.status).toBe(0);
    // Everything the run made as that uid it could also remove (overlay uppers with mode-000 dirs).
    expect(readdirSync(tmp).filter((e) => e.startsWith("devflow-"))).toEqual([]);
  }, 300_000);
});
