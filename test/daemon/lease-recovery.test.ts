import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isDevflowError } from "../../src/errors/index.js";
import { type QueueSandbox, queueSandbox, runClaimLoop } from "../support/queue-harness.js";

/**
 * Leases instead of junco's "everything in processing/ is orphaned" (reference §5.5): a claim whose
 * owner process died, or whose heartbeat went stale, goes back to the inbox; a live claim stays.
 */
let box: QueueSandbox;
afterEach(() => box.cleanup());

const processing = () => readdirSync(join(box.root, "queue", "processing"));

async function submitted(queue: ReturnType<QueueSandbox["queue"]>, frontmatter = "priority: normal") {
  const path = box.ticket(`t-${Math.random().toString(16).slice(2)}.md`, frontmatter);
  const result = await queue.submit(path, readFileSync(path));
  expect(result.findings).toEqual([]);
  return result.id;
}

describe("lease recovery", () => {
  it("returns the ticket of a claimer process that died to the inbox, with its repository free again", async () => {
    box = queueSandbox();
    const queue = box.queue();
    const id = await submitted(queue, `repo: ${box.repo("shop")}`);
    const run = runClaimLoop([box.root, join(box.dir, "unused.log"), "claim-and-die"]);
    const { code, stdout } = await run.done;
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(id);
    // Claimed and leased by the dead process: the lease names it, the repository claim is held.
    expect(processing().some((n) => n.endsWith(".lease.json"))).toBe(true);
    expect(processing().some((n) => n.startsWith(".repo-"))).toBe(true);
    // tsx runs the script in a child of the process we spawned: the lease names that child.
    const owner = (await queue.get(id))?.lease?.owner_pid;
    expect(owner).toBeGreaterThan(0);
    expect(owner).not.toBe(process.pid);

    const recovered = await queue.recover();
    expect(recovered).toEqual([{ id, token: expect.any(String), why: "owner_dead" }]);
    expect(processing()).toEqual([]);
    const entry = await queue.get(id);
    expect(entry?.state).toBe("inbox");
    expect(entry?.record).toMatchObject({ status: "queued", recoveries: 1 });
    expect(entry?.record?.reason).toContain(`pid ${owner}`);
    // The repository claim went with it: the ticket can be claimed again, under a new token.
    const again = await queue.claim();
    expect(again?.id).toBe(id);
    expect(again?.token).not.toBe(recovered[0]?.token);
  });

  it("leaves a live claim with a fresh heartbeat alone", async () => {
    box = queueSandbox();
    const queue = box.queue();
    const id = await submitted(queue);
    const claim = await queue.claim();
    expect(claim?.id).toBe(id);
    expect(await queue.recover()).toEqual([]);
    expect((await queue.get(id))?.state).toBe("processing");
  });

  it("recovers a stale heartbeat, after which the old holder's heartbeat and finish fail with LEASE_LOST", async () => {
    box = queueSandbox();
    const queue = box.queue({ lease_stale_seconds: 60 });
    const id = await submitted(queue);
    const claim = await queue.claim();
    if (!claim) throw new Error("no claim");
    const later = new Date(Date.now() + 61_000);
    expect(await queue.recover(later)).toEqual([{ id, token: claim.token, why: "heartbeat_stale" }]);
    const lost = await queue.heartbeat(claim).catch((error: unknown) => error);
    expect(isDevflowError(lost, "LEASE_LOST")).toBe(true);
    // The lease the failed heartbeat wrote was taken back: nothing of the old claim is left.
    expect(processing()).toEqual([]);
    const finished = await queue
      .finish(claim, { status: "completed", reason: null })
      .catch((e: unknown) => e);
    expect(isDevflowError(finished, "LEASE_LOST")).toBe(true);
    expect((await queue.get(id))?.state).toBe("inbox");
  });

  it("a heartbeat keeps a claim that would otherwise be stale", async () => {
    box = queueSandbox();
    const queue = box.queue({ lease_stale_seconds: 60 });
    await submitted(queue);
    const claim = await queue.claim();
    if (!claim) throw new Error("no claim");
    const later = new Date(Date.now() + 61_000);
    await queue.heartbeat(claim, later);
    expect(await queue.recover(new Date(later.getTime() + 1_000))).toEqual([]);
  });

  it("recovers a claim whose claimer died before writing its lease, once it is older than the stale window", async () => {
    box = queueSandbox();
    const queue = box.queue({ lease_stale_seconds: 60 });
    const id = await submitted(queue);
    const claim = await queue.claim();
    if (!claim) throw new Error("no claim");
    rmSync(join(box.root, "queue", "processing", `${id}@${claim.token}.lease.json`));
    expect(await queue.recover()).toEqual([]);
    expect(await queue.recover(new Date(Date.now() + 61_000))).toEqual([
      { id, token: claim.token, why: "no_lease" },
    ]);
    expect(existsSync(join(box.root, "queue", "inbox", `${id}.md`))).toBe(true);
  });
});
