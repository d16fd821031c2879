import { type ChildProcess, spawn } from "node:child_process";

/**
 * The last line of defence against process groups a test process leaves behind: one small `sh`
 * per test process (a vitest worker), outside its process group, reading `+ <pgid>` / `- <pgid>`
 * lines on a pipe from it. When the pipe closes, which the kernel does however the test process
 * ends (a normal exit, vitest tearing the worker down, a SIGKILL), it SIGKILLs every group still
 * registered. Groups a test ends itself are unregistered (`- <pgid>`) once they are gone, so a
 * pgid the system reuses later is not killed by mistake.
 */
const REAPER_SCRIPT = `
groups=" "
while read -r op pgid; do
  case "$op" in
    +) groups="$groups$pgid " ;;
    -) case "$groups" in *" $pgid "*) groups="\${groups%% $pgid *} \${groups#* $pgid }" ;; esac ;;
  esac
done
for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
`;

let reaper: ChildProcess | null = null;

function theReaper(): ChildProcess {
  if (reaper) return reaper;
  reaper = spawn("/bin/sh", ["-c", REAPER_SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
  // Neither the reaper nor its pipe may keep the test process alive: it ends when we end.
  reaper.unref();
  (reaper.stdin as unknown as { unref(): void }).unref();
  return reaper;
}

/** Registers `pgid` to be SIGKILLed when this process ends, however it ends. */
export function reapOnExit(pgid: number): void {
  theReaper().stdin?.write(`+ ${pgid}\n`);
}

/** Forgets `pgid` (its group is gone). */
export function forgetReaped(pgid: number): void {
  reaper?.stdin?.write(`- ${pgid}\n`);
}

/** The reaper's pid, for the test that proves it (undefined before the first registration). */
export const reaperPid = (): number | undefined => reaper?.pid;
