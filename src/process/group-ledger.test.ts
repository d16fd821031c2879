import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detachedGroups } from "../../test/support/detached-groups.js";
import { recordGroup, sweepRecordedGroups, withGroupLedger } from "./group-ledger.js";
import { groupIsAlive, processIsRunning } from "./process-group.js";
import { runProcess } from "./run-process.js";

const startGroup = detachedGroups();
const groupLeader = () => startGroup("sh", ["-c", "sleep 600 & sleep 600"]);

const ledger = () => mkdtempSync(join(tmpdir(), "devflow-ledger-"));

describe.skipIf(process.platform !== "linux")("process group ledger (ADR 0033)", () => {
  it("runProcess records its group while it waits and removes the record when the group is gone", async () => {
    const dir = ledger();
    const seen: string[][] = [];
    await withGroupLedger(dir, () =>
      runProcess({
        command: "sh",
        // The record is written right after spawn, racing the child's start: it waits up to 5 s for
        // it (a loaded machine), then lists what is there while it still runs.
        args: [
          "-c",
          `for i in $(seq 50); do ls ${JSON.stringify(dir)} | grep -q . && break; sleep 0.1; done; ls ${JSON.stringify(dir)}`,
        ],
        cwd: dir,
        env: { PATH: process.env.PATH ?? "" },
        timeoutMs: 10_000,
        onStdoutLine: (line) => seen.push([line]),
      }),
    );
    expect(seen.flat()).toEqual([expect.stringMatching(/^\d+\.json$/)]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("outside a ledger nothing is recorded", () => {
    expect(recordGroup(process.pid, "node")).toBeNull();
  });

  it("the sweep kills a recorded group (also its members when the leader is gone) and removes the records", async () => {
    const dir = ledger();
    const alive = groupLeader();
    await withGroupLedger(dir, async () => recordGroup(alive, "sh"));
    expect(await sweepRecordedGroups(dir)).toEqual([{ pgid: alive, command: "sh", result: "killed" }]);
    expect(groupIsAlive(alive)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a recycled pid (another start time) is never killed", async () => {
    const dir = ledger();
    const other = groupLeader();
    await withGroupLedger(dir, async () => recordGroup(other, "sh"));
    const file = join(dir, `${other}.json`);
    const record = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...record, start_ticks: record.start_ticks - 1 }));
    expect(await sweepRecordedGroups(dir)).toEqual([{ pgid: other, command: "sh", result: "recycled" }]);
    expect(processIsRunning(other)).toBe(true);
  });
});
