import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCancelRequest } from "../../src/daemon/cancel-request.js";
import { type QueueSandbox, queueSandbox, submitTicket } from "../support/queue-harness.js";

/** What claim takes next: priority, then age; not_before; a busy repository however it is spelt. */
let box: QueueSandbox;
afterEach(() => box.cleanup());

const submit = (queue: ReturnType<QueueSandbox["queue"]>, name: string, frontmatter: string) =>
  submitTicket(box, queue, frontmatter, undefined, name);

describe("claim order", () => {
  it("takes high before normal before low, and the older of two equal priorities first", async () => {
    box = queueSandbox();
    const queue = box.queue();
    const low = await submit(queue, "low.md", "priority: low");
    const normal = await submit(queue, "normal.md", "priority: normal");
    const high1 = await submit(queue, "high1.md", "priority: high");
    await new Promise((r) => setTimeout(r, 5));
    const high2 = await submit(queue, "high2.md", "priority: high");
    const order: string[] = [];
    for (let claim = await queue.claim(); claim; claim = await queue.claim()) order.push(claim.id);
    expect(order).toEqual([high1, high2, normal, low]);
  });

  it("skips a ticket whose not_before is ahead, and takes it once the time has come", async () => {
    box = queueSandbox();
    const queue = box.queue();
    const later = await submit(queue, "later.md", "priority: high\nnot_before: 2099-01-01T00:00:00Z");
    const now = await submit(queue, "now.md", "priority: low\nnot_before: 2000-01-01T00:00:00+00:00");
    expect((await queue.claim())?.id).toBe(now);
    expect(await queue.claim()).toBeNull();
    expect((await queue.claim({ now: new Date("2099-01-01T00:00:01Z") }))?.id).toBe(later);
  });

  it("never runs two tickets of one repository at once, also when a symlink spells it differently", async () => {
    box = queueSandbox();
    const queue = box.queue();
    const repo = box.repo("shop");
    symlinkSync(repo, join(box.dir, "shop-alias"));
    const first = await submit(queue, "a.md", "priority: high\nrepo: ./shop");
    const second = await submit(queue, "b.md", "priority: high\nrepo: ./shop-alias");
    const other = await submit(queue, "c.md", "priority: low");
    const claim = await queue.claim();
    expect(claim?.id).toBe(first);
    // The alias is the same repository: skipped while the first runs.
    expect((await queue.claim())?.id).toBe(other);
    expect(await queue.claim()).toBeNull();
    if (!claim) throw new Error("no claim");
    await queue.finish(claim, { status: "completed", reason: null });
    expect((await queue.claim())?.id).toBe(second);
  });

  it("skips the repositories the caller says it is running", async () => {
    box = queueSandbox();
    const queue = box.queue();
    box.repo("shop");
    const id = await submit(queue, "b.md", "repo: ./shop");
    const key = (await queue.get(id))?.record?.repo_key ?? "";
    expect(await queue.claim({ busyRepoKeys: new Set([key]) })).toBeNull();
    expect((await queue.claim())?.id).toBe(id);
  });
});

describe("cancel and retry", () => {
  it("cancel moves a waiting ticket to failed/ (cancelled), asks the daemon of a running one, refuses an unknown one", async () => {
    box = queueSandbox();
    const queue = box.queue();
    const a = await submit(queue, "a.md", "priority: high");
    const b = await submit(queue, "b.md", "priority: low");
    const claim = await queue.claim();
    expect(claim?.id).toBe(a);
    // Running: a cancel request beside the claim (ADR 0056); the ticket stays processing until its daemon acts.
    expect(await queue.cancel(a)).toMatchObject({ state: "processing" });
    expect(await readCancelRequest(box.root, a)).toMatchObject({
      id: a,
      by: expect.stringMatching(/@.+\(pid \d+\)/),
    });
    await expect(queue.cancel("no-such-ticket")).rejects.toMatchObject({ code: "TICKET_NOT_FOUND" });
    expect(await queue.cancel(b)).toMatchObject({ state: "failed", status: "cancelled" });
    await expect(queue.cancel(b)).rejects.toMatchObject({
      code: "TICKET_STATE",
      message: expect.stringMatching(/already finished/),
    });
    // A cancelled ticket can be retried; a waiting one cannot.
    expect(await queue.retry(b)).toMatchObject({ state: "inbox", status: "queued" });
    await expect(queue.retry(b)).rejects.toMatchObject({ code: "TICKET_STATE" });
  });
});
