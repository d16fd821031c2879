import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { groupIsAlive, processIsRunning, signalGroup } from "./process-group.js";

/**
 * The process groups a run started, recorded on disk before devflow waits on them (ADR 0033). A
 * SIGKILLed devflow cannot end its children (they run in their own groups by design, and no exit
 * hook runs), so the next run of the task (--resume) sweeps what the dead run recorded.
 *
 * The ledger is a directory (one `<pgid>.json` per running group), set for a stretch of async work
 * with `withGroupLedger` (the lane runner, for one task); runProcess records into whichever ledger
 * is current, so every child devflow starts (coders, seam and test runs, tool commands) is recorded
 * in one place. Outside a ledger nothing is recorded.
 */
const current = new AsyncLocalStorage<string>();

export interface GroupRecord {
  pgid: number;
  /** The leader's start time (clock ticks after boot, /proc/<pid>/stat field 22): a recycled pid differs. */
  start_ticks: number | null;
  /** The devflow process that started it. */
  devflow_pid: number;
  command: string;
}

/** Runs `fn` with `dir` as the ledger every runProcess inside it records its group in. */
export function withGroupLedger<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  return current.run(dir, fn);
}

/** Records a started group in the current ledger (if any); returns the record's path. */
export function recordGroup(pgid: number, command: string): string | null {
  const dir = current.getStore();
  if (dir === undefined) return null;
  mkdirSync(dir, { recursive: true });
  const record: GroupRecord = {
    pgid,
    start_ticks: startTicks(pgid),
    devflow_pid: process.pid,
    command: basename(command),
  };
  const file = join(dir, `${pgid}.json`);
  writeFileSync(file, JSON.stringify(record));
  return file;
}

/** Removes a record once its group is gone. */
export function forgetGroup(file: string | null): void {
  if (file) rmSync(file, { force: true });
}

/**
 * Whether a devflow process that recorded a group in `dir` still runs: the ledger's half of "is
 * this task live" (the task lock is the other). A recycled pid makes it say yes, the safe side for
 * `devflow clean`, which must never touch a live run.
 */
export function ledgerHasLiveRun(dir: string): boolean {
  let entries: string[];
  try {
    entries = readdirSync(dir).filter((e) => /^\d+\.json$/.test(e));
  } catch {
    return false;
  }
  return entries.some((entry) => {
    const record = readRecord(join(dir, entry));
    return record !== null && record.devflow_pid > 1 && processIsRunning(record.devflow_pid);
  });
}

export interface SweptGroup {
  pgid: number;
  command: string;
  /** killed: it was still running; gone: nothing ran any more; recycled: the pid belongs to another process now. */
  result: "killed" | "gone" | "recycled";
}

/**
 * Ends every recorded group of `dir` that still runs and removes the records. Call it only while no
 * live run records there (the caller holds the task's lock). A group is killed only when its leader
 * is the recorded process (same start time) or, the leader gone, when members started no earlier than
 * it remain; a pid recycled by an unrelated process is left alone. Where /proc is missing (macOS)
 * nothing can be verified and nothing is killed.
 */
export async function sweepRecordedGroups(dir: string): Promise<SweptGroup[]> {
  let entries: string[];
  try {
    entries = readdirSync(dir).filter((e) => /^\d+\.json$/.test(e));
  } catch {
    return [];
  }
  const swept: SweptGroup[] = [];
  for (const entry of entries) {
    const file = join(dir, entry);
    const record = readRecord(file);
    rmSync(file, { force: true });
    if (!record) continue;
    const result = ownedStill(record) ? await killGroup(record.pgid) : gone(record);
    swept.push({ pgid: record.pgid, command: record.command, result });
  }
  return swept;
}

function gone(record: GroupRecord): SweptGroup["result"] {
  const leader = startTicks(record.pgid);
  return leader !== null && leader !== record.start_ticks ? "recycled" : "gone";
}

function ownedStill(record: GroupRecord): boolean {
  if (record.start_ticks === null || !groupIsAlive(record.pgid)) return false;
  const leader = startTicks(record.pgid);
  if (leader !== null) return leader === record.start_ticks;
  // The leader exited; its group lives on in processes it started (never earlier than it).
  return membersOf(record.pgid).every((ticks) => ticks >= (record.start_ticks ?? 0));
}

async function killGroup(pgid: number): Promise<SweptGroup["result"]> {
  signalGroup(pgid, "SIGKILL");
  for (let i = 0; i < 200 && groupIsAlive(pgid); i++) await sleep(25);
  return "killed";
}

function readRecord(file: string): GroupRecord | null {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as Partial<GroupRecord>;
    if (!Number.isInteger(value.pgid) || (value.pgid ?? 0) <= 1) return null;
    return {
      pgid: value.pgid as number,
      start_ticks: typeof value.start_ticks === "number" ? value.start_ticks : null,
      devflow_pid: typeof value.devflow_pid === "number" ? value.devflow_pid : 0,
      command: typeof value.command === "string" ? value.command : "",
    };
  } catch {
    return null;
  }
}

/** Fields after the parenthesised command name of /proc/<pid>/stat: state ppid pgrp … starttime (index 19). */
function statFields(pid: string | number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

function startTicks(pid: number): number | null {
  const fields = statFields(pid);
  if (!fields || fields[0] === "Z" || fields[0] === "X") return null;
  const ticks = Number(fields[19]);
  return Number.isFinite(ticks) ? ticks : null;
}

function membersOf(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const ticks: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields && Number(fields[2]) === pgid && fields[0] !== "Z") ticks.push(Number(fields[19]));
  }
  return ticks;
}
