import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type QueueSandbox, queueSandbox, runClaimLoop } from "../support/queue-harness.js";

/**
 * Two real processes drain one inbox of a few hundred tickets (most without a repository, thirty
 * high-priority ones over three repositories, ten in a row each). Claims are renames into processing/; a ticket claimed twice,
 * lost, or two tickets of one repository held at once would all show in the claimers' logs.
 */
let box: QueueSandbox;
afterEach(() => box.cleanup());

interface Line {
  id: string;
  repo: string;
  from: bigint;
  to: bigint;
  pid: number;
}

const readLog = (path: string): Line[] =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => {
          const [id = "", repo = "", from = "0", to = "0", pid = "0"] = l.split(" ");
          return { id, repo, from: BigInt(from), to: BigInt(to), pid: Number(pid) };
        })
    : [];

describe("two claimers racing on one inbox", () => {
  it("never claim the same ticket, lose none, and never hold two tickets of one repository at once", async () => {
    box = queueSandbox();
    const queue = box.queue();
    const repos = ["shop", "blog", "wiki"].map((name) => box.repo(name));
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      // The first 30 are high priority and come ten per repository in a row: the next ticket in
      // claim order is nearly always one of the repository the other claimer holds.
      const repo = i < 30 ? `repo: ${repos[Math.floor(i / 10)]}\n` : "";
      const priority = i < 30 ? "high" : ["normal", "low"][i % 2];
      const path = box.ticket(`t${i}.md`, `${repo}priority: ${priority}`);
      const result = await queue.submit(path, readFileSync(path));
      expect(result.findings).toEqual([]);
      ids.push(result.id);
    }
    const logs = [join(box.dir, "a.log"), join(box.dir, "b.log")];
    const runs = logs.map((log) => runClaimLoop([box.root, log, "drain"]));
    const results = await Promise.all(runs.map((r) => r.done));
    for (const r of results) expect(r.stderr).toBe("");
    expect(results.map((r) => r.code)).toEqual([0, 0]);

    const [a, b] = logs.map(readLog) as [Line[], Line[]];
    // Both really claimed: otherwise this would not have been a race.
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    const claimed = [...a, ...b].map((l) => l.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect([...claimed].sort()).toEqual([...ids].sort());
    expect(readdirSync(join(box.root, "queue", "done")).length).toBe(300);
    expect(readdirSync(join(box.root, "queue", "inbox"))).toEqual([]);
    expect(readdirSync(join(box.root, "queue", "processing"))).toEqual([]);

    // Same repository: the claim intervals (claim → finish, inside the repository claim) never overlap.
    const byRepo = new Map<string, Line[]>();
    for (const line of [...a, ...b].filter((l) => l.repo !== "-"))
      byRepo.set(line.repo, [...(byRepo.get(line.repo) ?? []), line]);
    expect(byRepo.size).toBe(3);
    for (const lines of byRepo.values()) {
      lines.sort((x, y) => (x.from < y.from ? -1 : 1));
      for (let i = 1; i < lines.length; i++) expect(lines[i]?.from).toBeGreaterThan(lines[i - 1]?.to ?? 0n);
    }
    // Every record says done, at a revision that went up once per move.
    const final = await queue.list();
    expect(final.every((e) => e.state === "done" && e.record?.status === "completed")).toBe(true);
  }, 180_000);
});
