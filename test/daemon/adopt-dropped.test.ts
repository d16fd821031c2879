/**
 * Tickets dropped into inbox/ by hand (issue 12: "adopt tickets dropped into inbox/"): before this,
 * claim skipped any inbox file without a record, so `mv fix.md ~/.devflow/queue/inbox/` waited
 * forever without a word. Now the worker adopts them each poll: plan-lint, a fresh id and a record,
 * exactly as `devflow submit`.
 */
import { existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DROPPED_SETTLE_MS } from "../../src/daemon/fs-adopt.js";
import { type QueueSandbox, queueSandbox } from "../support/queue-harness.js";

let box: QueueSandbox;
afterEach(() => box.cleanup());

/** Writes `name` into the inbox as a person would, last written `ageMs` ago. */
function drop(name: string, text: string, ageMs = DROPPED_SETTLE_MS + 1_000): string {
  const path = join(box.root, "queue", "inbox", name);
  writeFileSync(path, text);
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
  return path;
}

const inbox = () => readdirSync(join(box.root, "queue", "inbox")).sort();

describe("tickets dropped into inbox/ by hand", () => {
  it("are linted, given an id and a record, and then claimed like a submitted ticket", async () => {
    box = queueSandbox();
    const queue = box.queue();
    queue.ensureRoot();
    const repo = box.repo("shop");
    const text = `---\nrepo: ${repo}\npriority: high\n---\nRound the cart total to cents.\n`;
    drop("fix cart.md", text);
    const adopted = await queue.adoptDropped();
    expect(adopted.map((a) => [a.dropped, a.findings])).toEqual([["fix cart.md", []]]);
    const id = adopted[0]?.id ?? "";
    expect(inbox()).toEqual([`${id}.md`]);
    expect(readFileSync(join(box.root, "queue", "inbox", `${id}.md`), "utf8")).toBe(text);
    // A queued ticket has its record: however long it waits, it is never adopted again.
    expect(await queue.adoptDropped(new Date(Date.now() + 10 * DROPPED_SETTLE_MS))).toEqual([]);
    const claim = await queue.claim();
    expect(claim?.id).toBe(id);
    expect(claim?.record.priority).toBe("high");
    // Nothing is left to adopt, and nothing of the dropped file lingers in the queue's temp dir.
    expect(await queue.adoptDropped()).toEqual([]);
    expect(readdirSync(join(box.root, "queue", ".tmp"))).toEqual([]);
  });

  it("a dropped ticket that fails plan-lint goes to failed/ with its reasons, nothing stays in the inbox", async () => {
    box = queueSandbox();
    const queue = box.queue();
    queue.ensureRoot();
    drop("bad.md", "---\nrepo: /nowhere/at/all\nsurprise: 1\n---\nDo it.\n");
    const [a] = await queue.adoptDropped();
    expect(a?.findings.map((f) => f.rule).sort()).toEqual(["repo_not_git", "unknown_key"].sort());
    expect(inbox()).toEqual([]);
    expect(existsSync(join(box.root, "queue", "failed", `${a?.id}.md`))).toBe(true);
    expect(await queue.claim()).toBeNull();
  });

  it("a file still being written (changed within the settle time) waits for a later poll", async () => {
    box = queueSandbox();
    const queue = box.queue();
    queue.ensureRoot();
    drop("fresh.md", "---\npriority: low\n---\nhalf a tick", 0);
    expect(await queue.adoptDropped()).toEqual([]);
    expect(inbox()).toEqual(["fresh.md"]);
    const later = new Date(Date.now() + DROPPED_SETTLE_MS + 1_000);
    expect((await queue.adoptDropped(later)).map((a) => a.dropped)).toEqual(["fresh.md"]);
  });

  it("two adopters racing take each dropped file once", async () => {
    box = queueSandbox();
    const first = box.queue();
    const second = box.queue();
    first.ensureRoot();
    for (let i = 0; i < 20; i++) drop(`t${i}.md`, `---\npriority: normal\n---\nTicket ${i}.\n`);
    const [a, b] = await Promise.all([first.adoptDropped(), second.adoptDropped()]);
    const dropped = [...(a ?? []), ...(b ?? [])].map((x) => x.dropped).sort();
    expect(dropped).toEqual(Array.from({ length: 20 }, (_, i) => `t${i}.md`).sort());
    expect(inbox()).toHaveLength(20);
  });

  /**
   * Regression (review of stop 18): the dropped file was renamed into queue/.tmp before it was
   * submitted, so a submit that threw (a full disk, an unwritable data/) or a daemon killed in
   * between lost the user's ticket without a trace. Fix: a failed adoption links the file back
   * into the inbox under its name; a taken file older than ten minutes (a dead adopter's) is put
   * back before each adoption pass.
   */
  it("regression: a failed adoption puts the dropped file back, and a dead adopter's file is put back later", async () => {
    box = queueSandbox();
    const queue = box.queue();
    queue.ensureRoot();
    const tickets = join(box.root, "data", "tickets");
    rmSync(tickets, { recursive: true, force: true });
    writeFileSync(tickets, "not a directory");
    const text = "---\npriority: normal\n---\nKeep me.\n";
    drop("keep.md", text);
    await expect(queue.adoptDropped()).rejects.toThrow();
    expect(inbox()).toEqual(["keep.md"]);
    expect(readFileSync(join(box.root, "queue", "inbox", "keep.md"), "utf8")).toBe(text);
    expect(readdirSync(join(box.root, "queue", ".tmp"))).toEqual([]);

    rmSync(tickets);
    const abandoned = join(box.root, "queue", ".tmp", "adopt-0123456789ab-left.md");
    writeFileSync(abandoned, text);
    const old = new Date(Date.now() - 11 * 60_000);
    utimesSync(abandoned, old, old);
    const adopted = await queue.adoptDropped();
    expect(adopted.map((a) => a.dropped).sort()).toEqual(["keep.md", "left.md"]);
    expect(readdirSync(join(box.root, "queue", ".tmp"))).toEqual([]);
  });
});
