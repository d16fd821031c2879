import { lstatSync, realpathSync } from "node:fs";
import { posix, sep } from "node:path";
import type { OpenTrace } from "../process/open-trace.js";
import { list } from "./seam-shared-process.js";
import { configuresTests } from "./test-config-files.js";

/** What node, python and the runners load as code or settings, by name. */
const LOADABLE = /\.(?:[cm]?[jt]sx?|json5?|node|so|py|pyc|pth|toml|ini|cfg|ya?ml)$/i;
/** A dotfile config (`.mocharc`, `.babelrc`, `.npmrc`, `.taprc`). */
const RC_FILE = /^\.[\w-]*rc$/;
/** Filesystems of the run's own namespace (a private /proc, devices, a fresh /run): nothing a coder left. */
const NAMESPACE_OWN = ["/proc/", "/dev/", "/sys/", "/run/", "/var/run/"];

/**
 * Why a seam run cannot vouch for the fix because it loaded code or configuration from outside its
 * checkout that was created or changed after the coder could first run (`sinceMs`, taken when the
 * contract was pinned), and that the run did not write itself; null when it did not, when no trace
 * was taken, or when the task has no such time (a task pinned before this check existed).
 *
 * Review of stop 37 (ADR 0074): vitest, mocha and pytest look for their configuration in every
 * folder above the checkout when the repository has none of its own, and the verification
 * checkout sits inside the user's repository. A coder wrote `vitest.config.mjs`, `.mocharc.json` or
 * `pytest.ini` with a preload into the folder above the repository (writable to it wherever that
 * folder is outside HOME); the seam ran with them and the lane completed, nothing in the snapshot
 * having changed. Whatever the runner and however it found the file, the trace shows the run opened
 * it, and its change time (which a process cannot set back) shows it is newer than the task's
 * pinned contract. A file that is gone by the time devflow looks, and was not written by the run,
 * counts too: the run's code could delete what it loaded. Data files are not judged here: only
 * names node, python or a runner load as code or settings.
 */
export function outsideExposure(input: {
  checkoutDir: string;
  trace: OpenTrace | undefined;
  sinceMs: number | undefined;
}): string | null {
  const { trace, sinceMs } = input;
  if (trace?.kind !== "traced" || sinceMs === undefined) return null;
  const inside = [input.checkoutDir, realOrSame(input.checkoutDir)].map((d) =>
    d.endsWith(sep) ? d : `${d}${sep}`,
  );
  const written = new Set(trace.written);
  const found: string[] = [];
  for (const path of trace.files) {
    if (inside.some((dir) => path.startsWith(dir)) || NAMESPACE_OWN.some((dir) => path.startsWith(dir)))
      continue;
    if (written.has(path) || !loadable(posix.basename(path))) continue;
    let changedAt: number;
    try {
      const stat = lstatSync(path);
      if (!stat.isFile()) continue;
      changedAt = stat.ctimeMs;
    } catch {
      found.push(`${path} (gone)`);
      continue;
    }
    if (changedAt >= sinceMs) found.push(path);
  }
  if (found.length === 0) return null;
  return (
    `the seam's run loaded code or configuration from outside its checkout that was created or changed while the task ran (${list(found.sort(), 5)}): ` +
    "a runner looks for its configuration above the repository, and anything there can make the seam pass without the fix; " +
    "remove those files, or give the repository its own configuration"
  );
}

const loadable = (name: string): boolean =>
  LOADABLE.test(name) || RC_FILE.test(name) || configuresTests(name);

function realOrSame(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
