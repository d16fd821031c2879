import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, beforeEach } from "vitest";
import { z } from "zod";
import type { DaemonConfig, TicketRecord, TicketResult } from "../../src/artifacts/schemas/ticket.js";
import { historyRevisionOf } from "../../src/artifacts/task-paths.js";
import type { FsTicketQueue } from "../../src/daemon/fs-queue.js";
import { Worker } from "../../src/daemon/worker.js";
import type { RunEnd, TicketRunner } from "../../src/daemon/worker-types.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { createModelGateway } from "../../src/models/create-gateway.js";
import { stopReason } from "../../src/process/stop-signal.js";
import { startDevflow } from "./devflow-process.js";
import { coderScript, DEMO_REQUEST, demoCassette, writeCassette } from "./lane-harness.js";
import { type QueueSandbox, queueSandbox } from "./queue-harness.js";

/** A real `devflow daemon` (the compiled CLI, bin/devflow.js) on the sandbox's data root. */
export function startDaemon(box: QueueSandbox, cassette = writeCassette(demoCassette())) {
  return startDevflow(["daemon", "--replay", cassette], { DEVFLOW_HOME: box.root });
}

/** `<root>/config.json` with a fast worker (polls of 0.2 s), merged over `worker`. */
export function writeWorkerConfig(box: QueueSandbox, worker: Record<string, unknown> = {}): void {
  mkdirSync(box.root, { recursive: true });
  writeFileSync(
    join(box.root, "config.json"),
    JSON.stringify({
      worker: { pollIntervalSeconds: 0.2, recoverIntervalSeconds: 1, graceSeconds: 0, ...worker },
    }),
  );
}

/** A change ticket on a fresh csv-import fixture repository, submitted; returns its id and repo. */
export async function submitChangeTicket(
  box: QueueSandbox,
  name: string,
  coder: string,
  opts: { verification?: string[]; maxIterations?: number } = {},
): Promise<{ id: string; repo: string }> {
  const repo = createFixtureRepo("csv-import");
  const blocks = (opts.verification ?? ["npm test"]).map((code) => `\`\`\`bash\n${code}\n\`\`\`\n`);
  const path = box.ticket(
    `${name}.md`,
    `repo: ${JSON.stringify(repo)}\ncoder: ${JSON.stringify(coder)}\nmax_iterations: ${opts.maxIterations ?? 3}`,
    `${DEMO_REQUEST}\n\n## Verification\n${blocks.join("\n")}`,
  );
  const result = await box.queue().submit(path, readFileSync(path));
  if (result.findings.length) throw new Error(`ticket refused: ${JSON.stringify(result.findings)}`);
  return { id: result.id, repo };
}

export const queueFiles = (box: QueueSandbox, state: string): string[] =>
  existsSync(join(box.root, "queue", state))
    ? readdirSync(join(box.root, "queue", state)).filter((n) => n.endsWith(".md"))
    : [];

export async function waitFor(what: string, ok: () => boolean, ms = 240_000): Promise<void> {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const ticketDir = (box: QueueSandbox, id: string) => join(box.root, "data", "tickets", id);

export const readResult = (box: QueueSandbox, id: string): TicketResult =>
  JSON.parse(readFileSync(join(ticketDir(box, id), "ticket_result.json"), "utf8")) as TicketResult;

export const readRecord = (box: QueueSandbox, id: string): TicketRecord =>
  JSON.parse(readFileSync(join(ticketDir(box, id), "ticket_record.json"), "utf8")) as TicketRecord;

/**
 * Every revision of an artifact of a ticket, oldest first (history/ plus the current file). Only
 * `<name>.rNNN.json` names count: a running daemon's atomic write leaves a short-lived
 * `<name>.rNNN.json.<random>` temp file there, which a prefix match read and then lost to the
 * rename (ENOENT; CI of session 25, coder-provider-requeue).
 */
export function revisions<T>(box: QueueSandbox, id: string, name: string): T[] {
  const history = join(ticketDir(box, id), "history");
  const old = existsSync(history)
    ? readdirSync(history)
        .filter((n) => historyRevisionOf(name, n) !== null)
        .map((n) => JSON.parse(readFileSync(join(history, n), "utf8")) as T & { revision: number })
    : [];
  const current = JSON.parse(readFileSync(join(ticketDir(box, id), `${name}.json`), "utf8")) as T & {
    revision: number;
  };
  return [...old, current].sort((a, b) => a.revision - b.revision);
}

/**
 * Checks a result branch independently of devflow: the fix is in the branch's file, and the
 * fixture's own test suite passes on a fresh checkout of that branch.
 */
export function checkBranch(
  repo: string,
  branch: string,
): { file: string; testsPass: boolean; commitsAhead: number } {
  const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });
  const file = git("show", `${branch}:src/csv-import.js`);
  const checkout = join(repo, "..", `check-${branch.replace(/\W/g, "-")}`);
  git("worktree", "add", "-q", "--detach", checkout, branch);
  let testsPass = true;
  try {
    execFileSync("node", ["--test"], { cwd: checkout, stdio: "ignore" });
  } catch {
    testsPass = false;
  }
  const commitsAhead = Number(git("rev-list", "--count", `main..${branch}`).trim());
  return { file, testsPass, commitsAhead };
}

/**
 * A fresh sandbox (data root, ticket files, repositories) for each test of the file, removed after
 * it. The object returned stands for the running test's sandbox, so a file declares it once:
 * `const box = sandboxPerTest();`.
 */
export function sandboxPerTest(): QueueSandbox {
  let current: QueueSandbox | undefined;
  beforeEach(() => {
    current = queueSandbox();
  });
  afterEach(() => {
    current?.cleanup();
    current = undefined;
  });
  const now = (): QueueSandbox => {
    if (!current) throw new Error("sandboxPerTest(): the sandbox exists only while a test runs");
    return current;
  };
  return {
    get dir() {
      return now().dir;
    },
    get root() {
      return now().root;
    },
    queue: (config) => now().queue(config),
    ticket: (name, frontmatter, body) => now().ticket(name, frontmatter, body),
    repo: (name) => now().repo(name),
    cleanup: () => now().cleanup(),
  };
}

/** What a scripted runner returns for a run that completed, with `over` changed. */
export const completedEnd = (over: Partial<RunEnd> = {}): RunEnd => ({
  status: "completed",
  verdict: "completed",
  reason: "scripted",
  taskId: null,
  branch: null,
  commit: null,
  attempts: 1,
  artifactDir: null,
  resumed: false,
  ...over,
});

/** Tickets that ended, either way (so a wrong end fails a test at once instead of timing it out). */
export const finishedTickets = (box: QueueSandbox): number =>
  queueFiles(box, "done").length + queueFiles(box, "failed").length;

/** A `command:` coder (a node module) that appends a line to `starts` at each start, then runs `body`. */
export const markedCoder = (starts: string, body: string): string =>
  coderScript(
    `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(starts)}, "start\\n");\n${body}`,
  );

/** How many times a markedCoder noting in `starts` started. */
export const startsOf = (starts: string): number =>
  existsSync(starts) ? readFileSync(starts, "utf8").split("\n").filter(Boolean).length : 0;

/** A coder body that never returns: the coder hangs until it is killed. */
export const HANG = "await new Promise(() => setInterval(() => {}, 1000));";

/** A Worker running in this process on the sandbox's root; `claims` lists what it claimed, in order. */
export function startTestWorker(
  box: QueueSandbox,
  opts: {
    queue: FsTicketQueue;
    config: DaemonConfig;
    runner: TicketRunner;
    endpoint?: { baseURL: string; apiKey: string } | null;
  },
) {
  const lines: string[] = [];
  const claims: { id: string; at: number }[] = [];
  const worker = new Worker({
    root: box.root,
    queue: opts.queue,
    config: opts.config,
    runner: async (run, ticket) => {
      claims.push({ id: run.claim.id, at: Date.now() });
      return opts.runner(run, ticket);
    },
    log: (l) => lines.push(l),
    random: () => 0.5,
    endpoint: opts.endpoint ?? null,
  });
  const running = worker.run();
  return {
    worker,
    lines,
    claims,
    stop: async () => {
      worker.stop(stopReason("SIGTERM", null));
      await running;
    },
  };
}

/** One live model call as a lane's framer makes it, through the live gateway; a thrown error is the run's. */
export async function liveFramerCall(baseURL: string, apiKey: string): Promise<void> {
  const gateway = createModelGateway({
    mode: "live",
    model: "gpt-4.1-mini",
    env: { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: baseURL },
    maxRetries: 0,
  });
  await gateway.structured({
    role: "framer",
    name: "frame",
    description: "Frame the task.",
    schema: z.object({ summary: z.string() }),
    messages: [new HumanMessage("fix the test")],
  });
}
