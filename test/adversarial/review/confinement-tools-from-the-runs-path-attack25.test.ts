/**
 * confinement-tools-found-through-the-runs-path (session-25 review of ADR 0020/0025/0068). A
 * confined run is spawned with the run's environment, and the spawn searched the run's PATH for
 * `unshare`; the mount script then ran `mount`, `mkdir`, `mktemp`, `umount` and finally `setpriv`
 * (the capability drop) through the same PATH, with every capability (as root: the host's). A run's
 * PATH holds directories a coder can write: a verification run's starts with the checkout's
 * `node_modules/.bin` (the committed tree, where the project does not ignore node_modules), and a
 * user's PATH may hold a directory of theirs outside HOME (not read-only in the plan) or an empty
 * entry (the working directory: the checkout). A planted `unshare` ran with no confinement at all;
 * a planted `setpriv` handed the command every capability (umount the cover over `.devflow`,
 * remount the repository writable).
 *
 * Fix: `unshare` and `setpriv` by absolute path from the system's directories (system-tool.ts);
 * the scripts run their tools with that PATH and put the run's PATH back only for the command.
 * Real processes: fake tools that log and exec the real ones, first in the run's PATH; as root
 * (the module under test) and as an unused uid (devflow's BUILT modules); the PID-namespace-only
 * fallback too.
 *
 *     npm run build && npx vitest run test/adversarial/review/confinement-tools-from-the-runs-path-attack25.test.ts
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mountNamespaceInUse } from "../../../src/process/mount-namespace.js";
import { runProcess } from "../../../src/process/run-process.js";
import { asUser, userRepo } from "../../support/mount-plan-as-user.js";
import { canDropToAnotherUid, unusedUid } from "../../support/scan-as-user.js";

const uid = unusedUid(7) + 5; // range 7 is this session's review; +5 keeps off its other files' uids
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const TOOLS = ["unshare", "setpriv", "mount", "umount", "mkdir", "mktemp", "rmdir", "rm", "dirname"];

/** A directory of fake tools that log their name to `hits` and exec the real one. */
function plantedTools(): { bin: string; hits: string } {
  const top = mkdtempSync(join(tmpdir(), "devflow-planted-tools-"));
  made.push(top);
  chmodSync(top, 0o755);
  const bin = join(top, "bin");
  mkdirSync(bin, { mode: 0o755 });
  const hits = join(top, "hits.log");
  writeFileSync(hits, "");
  chmodSync(hits, 0o666);
  for (const tool of TOOLS) {
    const real = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
      .map((d) => join(d, tool))
      .find((p) => existsSync(p));
    writeFileSync(join(bin, tool), `#!/bin/sh\necho ${tool} >> ${hits}\nexec ${real} "$@"\n`, {
      mode: 0o755,
    });
  }
  return { bin, hits };
}

const script = 'echo "ran with PATH=$PATH"; grep CapEff /proc/self/status';

describe.runIf(process.platform === "linux" && process.getuid?.() === 0)(
  "a confined run whose PATH starts with planted confinement tools",
  () => {
    it("as root with the mount plan: none of them runs; the command still gets the run's PATH and no capability", async () => {
      const { bin, hits } = plantedTools();
      const r = mkdtempSync(join(tmpdir(), "devflow-planted-repo-"));
      made.push(r);
      const checkout = join(r, ".devflow", "worktrees", "t");
      mkdirSync(checkout, { recursive: true });
      const run = await runProcess({
        command: script,
        shell: true,
        cwd: checkout,
        env: { PATH: `${bin}:${process.env.PATH}` },
        timeoutMs: 20_000,
        confine: true,
        mounts: { readOnly: r, hide: join(r, ".devflow"), expose: checkout },
      });
      expect(mountNamespaceInUse()).toBe("root");
      expect(run.output).toContain(`ran with PATH=${bin}:`);
      expect(run.output).toMatch(/CapEff:\s+0+\n/);
      expect(readFileSync(hits, "utf8")).toBe("");
    });

    it.runIf(canDropToAnotherUid())(
      "as an ordinary user (user mode), and with the PID namespace only: none of them runs",
      () => {
        for (const env of [{}, { DEVFLOW_NO_MOUNT_NAMESPACE: "1" }] as Record<string, string>[]) {
          const { bin, hits } = plantedTools();
          const r = userRepo(uid, made);
          // The planted directory in the run's PATH only: devflow's own probe keeps the clean one.
          const mounts = { readOnly: r.repo, hide: r.home, expose: r.checkout };
          const run = asUser(
            uid,
            `const run = await rp.runProcess({ command: ${JSON.stringify(script)}, shell: true, cwd: ${JSON.stringify(r.checkout)},
               env: { PATH: ${JSON.stringify(bin)} + ":" + process.env.PATH }, timeoutMs: 20000, confine: true,
               mounts: ${JSON.stringify(mounts)} });
             return { output: run.output, mode: mn.mountNamespaceInUse() };`,
            env,
          ) as { output: string; mode: string | null };
          expect(run.mode).toBe("DEVFLOW_NO_MOUNT_NAMESPACE" in env ? null : "user");
          expect(run.output).toContain(`ran with PATH=${bin}:`);
          expect(readFileSync(hits, "utf8")).toBe("");
        }
      },
    );
  },
);
