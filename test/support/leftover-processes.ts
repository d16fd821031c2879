/**
 * Processes a test run left behind, found through /proc (Linux; elsewhere there is nothing to
 * read and the check is vacuous, as ADR 0020 documents for devflow's own containment).
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { RUN_MARKER_ENV } from "../../src/process/containment.js";

export interface LeftoverProcess {
  pid: number;
  cmdline: string;
  why: string;
}

const read = (path: string): Buffer | null => {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
};

/** The entries of /proc (none where there is no /proc). */
const procEntries = (): string[] => {
  try {
    return readdirSync("/proc");
  } catch {
    return [];
  }
};

const alive = (pid: string): boolean => {
  const stat = read(`/proc/${pid}/stat`)?.toString("utf8") ?? "";
  const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  return stat !== "" && state !== "Z" && state !== "X";
};

/**
 * Live processes (other than this one) that carry a devflow run marker started by this process
 * (`DEVFLOW_RUN_MARKER=devflow-<our pid>-…`; pass `marker: false` while other runs of this
 * process are still going) or mention `dir` in their command line, environment
 * or working directory: what a coder or a verification run started from that temp dir.
 */
export function leftoverProcesses(
  dir: string,
  opts: { marker: boolean } = { marker: true },
): LeftoverProcess[] {
  const entries = procEntries();
  const marker = Buffer.from(`${RUN_MARKER_ENV}=devflow-${process.pid}-`);
  const needle = Buffer.from(dir);
  const found: LeftoverProcess[] = [];
  for (const pid of entries) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid || !alive(pid)) continue;
    const cmdline = read(`/proc/${pid}/cmdline`) ?? Buffer.alloc(0);
    const environ = read(`/proc/${pid}/environ`) ?? Buffer.alloc(0);
    let cwd = "";
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      // not ours to read, or gone
    }
    const why =
      opts.marker && environ.includes(marker)
        ? "carries our run marker"
        : cmdline.includes(needle)
          ? "command line names the temp dir"
          : environ.includes(needle)
            ? "environment names the temp dir"
            : cwd.startsWith(dir)
              ? "runs in the temp dir"
              : null;
    if (why)
      found.push({ pid: Number(pid), cmdline: cmdline.toString("utf8").replace(/\0/g, " ").trim(), why });
  }
  return found;
}

/**
 * Live (non-zombie) processes of process group `pgid`, from /proc/<pid>/stat (field 5, pgrp).
 * `kill(-pgid, 0)` cannot answer this: it succeeds while unreaped zombies hold the group.
 */
export function liveGroupMembers(pgid: number): number[] {
  const entries = procEntries();
  const members: number[] = [];
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = read(`/proc/${pid}/stat`)?.toString("utf8") ?? "";
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the command name: state, ppid, pgrp.
    if (stat !== "" && Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X")
      members.push(Number(pid));
  }
  return members;
}

/**
 * Live processes carrying a run marker made by devflow process `pid` (`DEVFLOW_RUN_MARKER=
 * devflow-<pid>-…`): what that devflow confined (ADR 0020), in process groups of their own.
 */
export function processesMarkedBy(pid: number): number[] {
  const entries = procEntries();
  const marker = Buffer.from(`${RUN_MARKER_ENV}=devflow-${pid}-`);
  return entries
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid && alive(p))
    .filter((p) => read(`/proc/${p}/environ`)?.includes(marker))
    .map(Number);
}
