/**
 * mount-plan-lost-when-devflow-runs-inside-a-user-namespace (session-25 review of ADR 0068's mode
 * choice). devflow run as root inside a user namespace it did not make (a rootless container,
 * `unshare -r`) picks `root` mode by its uid 0; an ordinary user there picks `user`. Both probes
 * failed, silently: no mount plan, detection only (`.devflow/state.sqlite`, the user's checkout and
 * `node_modules` writable to the coder). Cause: SCRIPT's last step, `mount -o remount,ro "$hide"`,
 * is a superblock remount, and util-linux re-sends the tmpfs's `uid=` option as /proc shows it (the
 * init namespace's uid), which the inner namespace does not map: EINVAL. Fix: a bind remount (the
 * mount's read-only flag, locked for a nested namespace like every other cover).
 * Real processes: an unused uid (setpriv) makes `unshare -Ur` and runs devflow's BUILT probe there,
 * then a confined run that tries to read and write what the plan hides.
 *
 *     npm run build && npx vitest run test/adversarial/review/mount-plan-inside-a-user-namespace-attack25.test.ts
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUILT_PROCESS_MODULE } from "../../support/mount-plan-as-user.js";
import { asUid, canDropToAnotherUid, unusedUid } from "../../support/scan-as-user.js";

const uid = unusedUid(7) + 3; // range 7 is this session's review; +3 keeps off its other files' uids
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const userns = canDropToAnotherUid() && spawnsUserNamespace();
function spawnsUserNamespace(): boolean {
  try {
    execFileSync("setpriv", [...asUid(uid), "unshare", "-Ur", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe.runIf(
  userns && existsSync(new URL("../../../dist/src/process/mount-namespace.js", import.meta.url)),
)("devflow inside a user namespace it did not make (ADR 0068)", () => {
  it("as root there: the mount plan is proved (root mode) and a confined run can neither read devflow's home nor write the repository", () => {
    const top = mkdtempSync(join(tmpdir(), "devflow-in-userns-"));
    made.push(top);
    const repo = join(top, "repo");
    const home = join(repo, ".devflow");
    const checkout = join(home, "worktrees", "t");
    mkdirSync(checkout, { recursive: true });
    writeFileSync(join(home, "state.sqlite"), "state");
    writeFileSync(join(repo, "file.txt"), "user");
    for (const path of [
      top,
      repo,
      home,
      join(home, "worktrees"),
      checkout,
      join(home, "state.sqlite"),
      join(repo, "file.txt"),
    ])
      chownSync(path, uid, uid);
    const script =
      "cat ../../state.sqlite 2>/dev/null && echo read-state; echo evil > ../../../file.txt 2>/dev/null && echo wrote-repo; echo ran";
    const code = [
      `const mn = await import(${JSON.stringify(BUILT_PROCESS_MODULE("mount-namespace"))});`,
      `const rp = await import(${JSON.stringify(BUILT_PROCESS_MODULE("run-process"))});`,
      `const run = await rp.runProcess({ command: ${JSON.stringify(script)}, shell: true, cwd: ${JSON.stringify(checkout)},
           env: { PATH: process.env.PATH }, timeoutMs: 20000, confine: true,
           mounts: { readOnly: ${JSON.stringify(repo)}, hide: ${JSON.stringify(home)}, expose: ${JSON.stringify(checkout)} } });`,
      "console.log(JSON.stringify({ uid: process.getuid(), mode: mn.mountNamespaceInUse(), output: run.output }));",
    ].join("\n");
    const out = JSON.parse(
      execFileSync(
        "setpriv",
        [...asUid(uid), "unshare", "-Ur", process.execPath, "--input-type=module", "-e", code],
        { encoding: "utf8", env: { ...process.env, HOME: tmpdir(), XDG_CONFIG_HOME: tmpdir() } },
      ).trim(),
    ) as { uid: number; mode: string | null; output: string };
    expect(out.uid).toBe(0);
    expect(out.mode).toBe("root");
    expect(out.output).toContain("ran");
    expect(out.output).not.toContain("read-state");
    expect(out.output).not.toContain("wrote-repo");
    expect(readFileSync(join(repo, "file.txt"), "utf8")).toBe("user");
  });
});
