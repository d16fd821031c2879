/**
 * Regression (session-18 review, review18; fixed in session 23): the in-use scan coder checkout
 * reuse makes at the claim (src/workspace/dir-in-use.ts, ADR 0050) missed a non-dumpable process.
 *
 * Cause: a process the old coder left with its working directory in the checkout follows the
 * checkout's rename and writes into the next task's tree, so the claim scans `/proc/<pid>/{cwd,
 * root,fd,maps}` and removes a checkout some process uses. An entry the scan could not read counted
 * as "not ours to read (another user's process cannot write into our files)". A process of
 * devflow's own uid makes itself unreadable by turning non-dumpable, which needs no privilege:
 * exec a binary it may execute but not read (mode 111, as here), or prctl(PR_SET_DUMPABLE, 0). Its
 * `/proc` links then answer EACCES to every process of that uid, and the scan called the checkout
 * unused although the process sat in it and could write it. Only where devflow runs as a user
 * without CAP_SYS_PTRACE (as root the scan reads everything), i.e. where the namespaces of ADR 0025
 * are missing, which is also where a coder's process can outlive its run.
 *
 * Fix: a process whose links answer EACCES/EPERM, whose `/proc/<pid>/status` names devflow's uid and
 * whose start (`/proc/<pid>/stat` field 22 + boot time, both readable) is not before the old task
 * began (its run record's first state) counts as in use: the claimed checkout is removed and the
 * task checks the base out afresh, with the reason in the reuse decision. A non-dumpable process
 * started before the old task began (the user's ssh-agent) does not stop reuse.
 *
 * Needs root (to drop to an unused uid with setpriv) and a fresh dist/ (the scan and the claim run
 * from it as that uid):
 *
 *     npm run build && npx vitest run test/adversarial/review/reuse-scan-misses-a-nondumpable-process-attack18.test.ts
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { idleCoderCheckoutsDir } from "../../../src/home/paths.js";
import { retireCoderCheckout } from "../../../src/workspace/coder-checkout-reuse.js";
import { whyDirInUse } from "../../../src/workspace/dir-in-use.js";
import { snapshotTree } from "../../../src/workspace/snapshot.js";
import { taskWorktreePath } from "../../../src/workspace/task-worktree.js";
import { coderCheckoutWithStore } from "../../support/coder-checkout.js";
import {
  asUid,
  canDropToAnotherUid,
  killAndReap,
  nodeAsUid,
  scanAsUid,
  unusedUid,
} from "../../support/scan-as-user.js";
import { git, makeRepo } from "../../support/test-repo.js";

const REUSE = new URL("../../../dist/src/workspace/coder-checkout-reuse.js", import.meta.url);
/** devflow's uid in these tests: an ordinary user no one else on the machine runs as. */
const USER = unusedUid(2);
const AS_USER = asUid(USER);
const canDropToUser = canDropToAnotherUid;
/** More than the scan's clock slack (START_SLACK_MS, 2 s): "started before" beyond doubt. */
const OLDER = 2600;

const kids: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await killAndReap(kids);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh top dir readable by uid USER (tmpdir's mkdtemp gives 0700). */
function topDir(): string {
  const top = mkdtempSync(join(tmpdir(), "devflow-attack18-scan-"));
  dirs.push(top);
  chmodSync(top, 0o755);
  return top;
}

/** A process of uid USER sitting in `checkout` running `program` (execute-only: non-dumpable). */
async function squatIn(checkout: string, program: "readable" | "execute-only"): Promise<number> {
  const sleeper = join(topDir(), "sleeper");
  copyFileSync(execFileSync("sh", ["-c", "command -v sleep"], { encoding: "utf8" }).trim(), sleeper);
  chmodSync(sleeper, program === "execute-only" ? 0o111 : 0o755);
  const kid = spawn("setpriv", [...AS_USER, "sh", "-c", `cd "${checkout}" && exec "${sleeper}" 60`], {
    stdio: "ignore",
  });
  kids.push(kid);
  const pid = kid.pid as number;
  // setpriv and sh exec in place: wait until the pid runs the sleeper.
  for (let i = 0; i < 100; i++) {
    try {
      if (readlinkSync(`/proc/${pid}/exe`) === sleeper) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(readlinkSync(`/proc/${pid}/exe`)).toBe(sleeper);
  return pid;
}

/** A folder owned by uid USER. */
function usersDir(): string {
  const dir = join(topDir(), "checkout");
  mkdirSync(dir);
  chownSync(dir, USER, USER);
  return dir;
}

/** A checkout owned by uid USER, and a process of that uid sitting in it running `program`. */
async function squatter(program: "readable" | "execute-only"): Promise<{ checkout: string; pid: number }> {
  const checkout = usersDir();
  return { checkout, pid: await squatIn(checkout, program) };
}

const nodeAsUser = (code: string): string => nodeAsUid(USER, code);
const scanAsUser = (checkout: string, since: number): string | null => scanAsUid(USER, checkout, since);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(canDropToUser())("review18: the claim's in-use scan as an ordinary user", () => {
  it("sees a process of its own uid sitting in the checkout (the harness works)", async () => {
    const { checkout, pid } = await squatter("readable");
    expect(scanAsUser(checkout, Date.now() + 60_000)).toMatch(new RegExp(`^process ${pid} has its cwd`));
  }, 20_000);

  it("reuse-scan-misses-a-nondumpable-process: a non-dumpable process of devflow's uid that started after the old task began counts as in use", async () => {
    const began = Date.now();
    const { checkout, pid } = await squatter("execute-only");
    // As root the scan reads the process's links: it is there.
    expect(whyDirInUse(checkout, Number.POSITIVE_INFINITY)).toMatch(
      new RegExp(`^process ${pid} has its cwd`),
    );
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(checkout);
    // As the process's own uid it cannot read them, and now fails closed.
    expect(scanAsUser(checkout, began)).toMatch(
      new RegExp(`^process ${pid} of devflow's uid .* cannot be read \\(non-dumpable\\)`),
    );
    // What it guards against: the process can write the checkout.
    execFileSync("setpriv", [...AS_USER, "sh", "-c", `echo planted > "${join(checkout, "planted")}"`]);
    expect(existsSync(join(checkout, "planted"))).toBe(true);
  }, 20_000);

  it("an unreadable process of another uid does not count: it cannot write devflow's files", async () => {
    const began = Date.now();
    const checkout = usersDir();
    // A process of root (not devflow's uid) in the checkout: its links are unreadable to that uid.
    const kid = spawn("sleep", ["60"], { cwd: checkout, stdio: "ignore" });
    kids.push(kid);
    await sleep(200);
    expect(readlinkSync(`/proc/${kid.pid}/cwd`)).toBe(checkout);
    expect(scanAsUser(checkout, began)).toBeNull();
  }, 20_000);

  it("a non-dumpable process of devflow's uid that started before the old task began (ssh-agent) does not block reuse", async () => {
    const { checkout } = await squatter("execute-only");
    await sleep(OLDER);
    expect(scanAsUser(checkout, Date.now())).toBeNull();
  }, 20_000);
});

/**
 * Task A finished and retired idle (trusted index), with its run record saying when it began; the
 * whole repository handed to uid USER, as whose devflow the next task then claims it.
 */
async function idleTaskA(began: number): Promise<{ root: string; idle: string; base: string }> {
  const root = makeRepo({ "a.js": "export const a = 1;\n" });
  dirs.push(root);
  const a = await coderCheckoutWithStore(root, "task-a", began);
  await snapshotTree(a.worktree);
  expect(retireCoderCheckout(root, "task-a", a.worktree, 1)).toBe("kept_idle");
  const base = git(root, "rev-parse", "HEAD").trim();
  chmodSync(root, 0o755);
  execFileSync("chown", ["-R", `${USER}:${USER}`, root]);
  return { root, idle: join(idleCoderCheckoutsDir(root), "task-a"), base };
}

/** reuseIdleCoderCheckout as uid USER: the task it reused from, or the reasons it declined. */
function claimAsUser({ root, base }: { root: string; base: string }): {
  reused: { from: string } | null;
  declined: { reason: string }[];
} {
  const request = {
    repoRoot: root,
    worktree: taskWorktreePath(root, "task-b"),
    branch: "devflow/task-b",
    baseCommit: base,
    userObjects: join(root, ".git", "objects"),
  };
  return JSON.parse(
    nodeAsUser(
      `const m = await import(${JSON.stringify(REUSE.href)}); const declined = []; const reused = await m.reuseIdleCoderCheckout({ ...${JSON.stringify(request)}, declined }); console.log(JSON.stringify({ reused, declined }));`,
    ),
  );
}

describe.runIf(canDropToUser())(
  "review18: the claim as an ordinary user goes by the old task's start",
  () => {
    it("reuse-claims-a-checkout-a-nondumpable-leftover-sits-in: a leftover of the old task is seen, the checkout removed, the reason given", async () => {
      const taskA = await idleTaskA(Date.now() - 60_000);
      await squatIn(taskA.idle, "execute-only");
      // Sat there a while (beyond the clock slack) before the next task claims the checkout.
      await sleep(OLDER);
      const { reused, declined } = claimAsUser(taskA);
      expect(reused).toBeNull();
      expect(declined).toHaveLength(1);
      expect(declined[0]?.reason).toMatch(/^in use: process \d+ of devflow's uid .* \(non-dumpable\)/);
      expect(existsSync(taskWorktreePath(taskA.root, "task-b"))).toBe(false);
    }, 60_000);

    it("a non-dumpable process older than the old task does not stop the claim", async () => {
      // The squatter first, then the task's start OLDER ms later: the user's agent, not a leftover.
      await squatter("execute-only");
      await sleep(OLDER);
      const { reused, declined } = claimAsUser(await idleTaskA(Date.now()));
      expect(declined).toEqual([]);
      expect(reused).toEqual({ from: "task-a" });
    }, 60_000);
  },
);
