/**
 * mount-plan-path-parsed-as-shell-text (found reading the session-25 review's fix before merging
 * it). To hold each exposed directory and kept /run file on a descriptor, the mount script ran
 * `eval "exec 3<"$a""`: the path was pasted into the text eval parses. A repository under a folder
 * with a space (`My Projects`) made the shell exec a command named after the path's second word,
 * so every confined run of that repository failed; a folder name holding `$(...)` ran it with every
 * capability of the mount namespace, before the cover.
 * Fix: eval sees `exec 3<"$a"` and expands `$a` itself, so a path is never parsed as shell text.
 * Real processes: the module under test (root, or a user namespace of the current uid), a real
 * repository path with a space, `$(...)`, quotes and a backtick, and a kept /run file likewise.
 *
 *     npx vitest run test/adversarial/review/mount-plan-path-parsed-as-shell-text.test.ts
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
  "a repository whose path holds shell text",
  () => {
    it("is bound as a path: the run sees its checkout and nothing in the name runs", async () => {
      const parent = mkdtempSync(join(tmpdir(), "devflow-shell-text-"));
      made.push(parent);
      const marker = join(parent, "ran");
      const repo = join(parent, `My Projects $(touch ${marker}) 'q" \`touch ${marker}\``);
      const { checkout, report, plan } = planLayout(repo);
      const kept = keptRunFile("devflow shell $(touch x) ", made);
      const run = await runProcess({
        command: 'cat tracked.txt; echo x > "$REPORT/out" && echo wrote-report; cat "$KEPT"',
        shell: true,
        cwd: checkout,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", REPORT: report, KEPT: kept },
        timeoutMs: 20_000,
        confine: true,
        mounts: plan(kept),
      });
      expect(run.output).toContain("checkout");
      expect(run.output).toContain("wrote-report");
      expect(run.output).toContain("nameserver 127.0.0.1");
      expect(readFileSync(join(report, "out"), "utf8")).toBe("x\n");
      expect(existsSync(marker)).toBe(false);
      expect(existsSync("x")).toBe(false);
    });
  },
);
