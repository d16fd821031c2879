/**
 * mount-plan-parked-mounts-in-the-shared-temp-dir (session-25 review of ADR 0025/0068/0069). The
 * mount script parked each exposed directory on a mount point under `mktemp -d` (the run's TMPDIR,
 * /tmp by default) while the tmpfs covered `.devflow`, and LOCKDOWN parked the /run files kept the
 * same way. /tmp is shared with every other process of the same uid, other tasks' coders included:
 * between the two binds, such a process could remove the parked mount point (a mount point only in
 * the run's namespace is an empty directory to it) and put a link to a tree of its own there, and
 * the run's checkout became that tree (a verification run passing on other bytes than devflow
 * commits). Not raced here; the cause is pinned: the plan creates nothing in the run's temp dir.
 * Fix: each exposed directory and kept file is held open on a descriptor across the cover and bound
 * back from `/proc/self/fd/<n>` (`mount -c`: the magic link as it is).
 * Real processes: the module under test as root, a /run file kept (runFiles), fs.watch on TMPDIR.
 *
 *     npx vitest run test/adversarial/review/mount-plan-parks-nothing-in-the-shared-temp-dir-attack25.test.ts
 */
import { mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mountNamespaceWorks } from "../../../src/process/mount-namespace.js";
import { runProcess } from "../../../src/process/run-process.js";
import { keptRunFile, planLayout } from "../../support/mount-plan-layout.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(process.platform === "linux" && mountNamespaceWorks())(
  "the mount plan and the run's temp dir",
  () => {
    it("parks nothing there: the checkout, a report dir and a kept /run file are bound back through descriptors", async () => {
      const repo = mkdtempSync(join(tmpdir(), "devflow-park-"));
      made.push(repo);
      const { home, checkout, report, plan } = planLayout(repo);
      writeFileSync(join(home, "state.sqlite"), "state");
      const kept = keptRunFile("devflow-park-", made);
      const temp = mkdtempSync(join(tmpdir(), "devflow-park-temp-"));
      made.push(temp);
      const seen: string[] = [];
      const watcher = watch(temp, (_event, name) => seen.push(String(name)));
      try {
        const run = await runProcess({
          command: `cat tracked.txt; echo x > ${report}/out && echo wrote-report; cat ${kept}; cat ../../state.sqlite 2>/dev/null && echo read-state`,
          shell: true,
          cwd: checkout,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: temp },
          timeoutMs: 20_000,
          confine: true,
          mounts: plan(kept),
        });
        await new Promise((r) => setTimeout(r, 200)); // let the watcher deliver
        expect(run.output).toContain("checkout");
        expect(run.output).toContain("wrote-report");
        expect(run.output).toContain("nameserver 127.0.0.1");
        expect(run.output).not.toContain("read-state");
        expect(readFileSync(join(report, "out"), "utf8")).toBe("x\n");
        expect(seen).toEqual([]);
      } finally {
        watcher.close();
      }
    });
  },
);
