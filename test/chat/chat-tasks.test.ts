/**
 * Issue 11 for the chat (ADR 0049): an iterate task started by a chat message was silent while its
 * coder ran (one line per finished node, no elapsed time, transcript path or heartbeat), chat took
 * no --quiet/--verbose/--no-color, kept every task's coder checkout, never said how to take the
 * result, and `chat --json` ended without one `result` line (its per-turn `result` events made
 * "the last result line" ambiguous). Fix: chat tasks report to the same human progress as
 * `devflow iterate` (src/lanes/intake/nodes/task-progress.ts), finish like iterate
 * (finish-task.ts: checkout removed unless --keep-worktree, take-the-result lines), and a --json
 * chat ends with exactly one result line (src/cli/chat-result.ts); per-turn outcomes are
 * `lane_result` events. Real chat processes, a real coder process, real signals, a real terminal.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { spawn as spawnPty } from "@lydell/node-pty";
import { describe, expect, it } from "vitest";
import { coderScript, DEMO_REQUEST } from "../support/lane-harness.js";
import { screenOf } from "../support/screen.js";
import { git } from "../support/test-repo.js";
import { chatStdoutProblems } from "./support/chat-json.js";
import { devflowArgv, runPiped, startPiped } from "./support/chat-process.js";
import {
  cassetteWith,
  framedAnswer,
  hangingCoder,
  laneCalls,
  route,
  useScratch,
} from "./support/intake-fixtures.js";

// Removed after all tests, not after each: the tests run concurrently.
const scratch = useScratch("all");
/** Each test runs a whole iterate lane under the chat on a shared 2-core machine. */
const RUN_TIMEOUT_MS = 240_000;

/** A coder that takes ~3 s, says what it does on stdout, then applies the real fix. */
const SLOW_CODER = `
import { readFileSync, writeFileSync } from "node:fs";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
console.log("reading the prompt");
await sleep(1000);
console.log("editing src/csv-import.js now");
await sleep(2000);
const f = "src/csv-import.js";
writeFileSync(f, readFileSync(f, "utf8").replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(row.email.trim()))"));
console.log("Trimmed the email before validating it.");
`;

/** The chat's cassette for one message that becomes the demo's iterate task. */
const iterateCassette = () =>
  cassetteWith({ router: [route("iterate")], framer: [framedAnswer()], ...laneCalls() });

/** The environment without the caller's colour and heartbeat settings. */
const PLAIN_ENV = {
  NO_COLOR: undefined,
  FORCE_COLOR: undefined,
  DEVFLOW_PROGRESS_INTERVAL: undefined,
  CI: undefined,
};

const taskIdIn = (text: string) => (text.match(/\.devflow\/iterate\/([\w.-]+)/) ?? [])[1] ?? "";

describe.concurrent("iterate tasks started by devflow chat", () => {
  it(
    "piped: iterate's progress lines (coder start line with transcript, heartbeat) on stderr; the finished task's checkout is kept idle (and said so) and the take-the-result lines printed",
    async () => {
      const repo = scratch.repo();
      const run = await runPiped(
        [
          "chat",
          "--repo",
          repo,
          "--coder",
          coderScript(SLOW_CODER),
          "--replay",
          iterateCassette(),
          "--yes",
          "--progress-interval",
          "1",
        ],
        `${DEMO_REQUEST}\n`,
        PLAIN_ENV,
      );
      expect(run.code, run.err).toBe(0);
      expect(run.err).toMatch(
        /^code {6}… attempt-001 started, transcript: \S+\/attempts\/attempt-001\/coder_transcript\.log$/m,
      );
      const beats = run.err.match(/^code {6}… running \d+s \(run \d+s\) · attempt-001.*$/gm) ?? [];
      expect(beats.length, run.err).toBeGreaterThanOrEqual(1);
      expect(run.err).toMatch(/^frame +✓ /m);
      expect(run.err).toMatch(/^commit +✓ /m);
      // The chat's own one-line-per-node progress is not printed as well.
      expect(run.out).not.toMatch(/^ {2}(frame|code) /m);
      const taskId = taskIdIn(run.out);
      expect(run.out).toContain("completed: ");
      expect(run.out).toContain("  worktree  coder checkout kept idle for the next task (");
      expect(run.out).toContain(`to take the result: git merge devflow/${taskId}`);
      expect(run.out).toContain(`to review it first: git diff HEAD...devflow/${taskId}`);
      expect(existsSync(join(repo, ".devflow", "worktrees", taskId))).toBe(false);
      expect(git(repo, "branch", "--list", `devflow/${taskId}`)).toContain(`devflow/${taskId}`);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "--quiet: no progress lines at all; the conversation's reply still says how it ended",
    async () => {
      const repo = scratch.repo();
      const run = await runPiped(
        [
          "chat",
          "--repo",
          repo,
          "--coder",
          coderScript(SLOW_CODER),
          "--replay",
          iterateCassette(),
          "--yes",
          "--quiet",
          "--progress-interval",
          "1",
        ],
        `${DEMO_REQUEST}\n`,
        PLAIN_ENV,
      );
      expect(run.code, run.err).toBe(0);
      expect(run.err).not.toMatch(/^(frame|code|commit) /m);
      expect(run.out).not.toMatch(/^ {2}(frame|code) /m);
      expect(run.out).toContain("to take the result: git merge devflow/");
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "--json --keep-worktree: events, then exactly one result line (result_line schema); the checkout is kept",
    async () => {
      const repo = scratch.repo();
      const run = await runPiped(
        [
          "chat",
          "--repo",
          repo,
          "--json",
          "--keep-worktree",
          "--coder",
          coderScript(SLOW_CODER),
          "--replay",
          iterateCassette(),
          "--yes",
        ],
        `${DEMO_REQUEST}\n`,
      );
      expect(run.code, run.err).toBe(0);
      expect(chatStdoutProblems(run.out)).toEqual([]);
      const lines = run.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const finished = lines.find((l) => l.type === "task_finished");
      const taskId = String(finished?.task_id);
      expect(finished).toMatchObject({
        verdict: "completed",
        branch: `devflow/${taskId}`,
        worktree_kept: true,
        take_result: { merge: `git merge devflow/${taskId}`, review: `git diff HEAD...devflow/${taskId}` },
      });
      expect(lines.find((l) => l.type === "lane_result")).toMatchObject({
        lane: "iterate",
        outcome: "completed",
      });
      const thread = lines.find((l) => l.type === "thread");
      expect(lines.at(-1)).toEqual({
        type: "result",
        command: "chat",
        exit_code: 0,
        error: null,
        thread_id: thread?.id,
        failed_turns: 0,
      });
      expect(existsSync(join(repo, ".devflow", "worktrees", taskId))).toBe(true);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "--json, SIGTERM while the coder runs: the turn stops and the process ends with one INTERRUPTED result line, exit 143",
    async () => {
      const repo = scratch.repo();
      const marker = join(scratch.dir(), "coder-started");
      const chat = startPiped([
        "chat",
        "--repo",
        repo,
        "--json",
        "--coder",
        hangingCoder(marker),
        "--replay",
        iterateCassette(),
        "--yes",
      ]);
      chat.send(DEMO_REQUEST);
      await chat.waitForOut('"node":"code","phase":"start"', 180_000);
      await waitFor(() => existsSync(marker), 60_000);
      chat.kill("SIGTERM");
      const done = await chat.done;
      expect(done.code, done.err).toBe(143);
      expect(chatStdoutProblems(done.out)).toEqual([]);
      expect(JSON.parse(done.out.trim().split("\n").at(-1) ?? "{}")).toMatchObject({
        type: "result",
        command: "chat",
        exit_code: 143,
        error: { code: "INTERRUPTED", category: "interrupted", message: "stopped by SIGTERM" },
      });
    },
    RUN_TIMEOUT_MS,
  );

  it("--json, an unknown thread: exit 2 and one result line with the error", async () => {
    const repo = scratch.repo();
    const run = await runPiped(
      ["chat", "--repo", repo, "--json", "--thread", "chat-nope", "--replay", cassetteWith({})],
      "",
    );
    expect(run.code).toBe(2);
    expect(chatStdoutProblems(run.out)).toEqual([]);
    expect(JSON.parse(run.out.trim())).toMatchObject({
      type: "result",
      command: "chat",
      exit_code: 2,
      error: { code: "THREAD_NOT_FOUND", category: "usage" },
    });
  });

  it(
    "on a terminal: the live line (spinner, elapsed time, coder activity, transcript) while the coder runs, gone afterwards",
    async () => {
      const repo = scratch.repo();
      const [node = "", ...args] = devflowArgv(
        "chat",
        "--repo",
        repo,
        "--coder",
        coderScript(SLOW_CODER),
        "--replay",
        iterateCassette(),
        "--yes",
      );
      const raw = await new Promise<string>((resolve, reject) => {
        const term = spawnPty(node, args, { cols: 200, rows: 50, cwd: repo, env: plainEnv() });
        let seen = "";
        let sent = false;
        let quit = false;
        const timer = setTimeout(() => {
          term.kill();
          reject(new Error(`no end in time:\n${seen}`));
        }, RUN_TIMEOUT_MS - 10_000);
        term.onData((text) => {
          seen += text;
          if (!sent && seen.includes("you> ")) {
            sent = true;
            term.write(`${DEMO_REQUEST}\r`);
          } else if (!quit && seen.includes("to review it first:")) {
            quit = true;
            term.write("/quit\r");
          }
        });
        term.onExit(({ exitCode }) => {
          clearTimeout(timer);
          if (exitCode === 0) resolve(seen);
          else reject(new Error(`exit ${exitCode}:\n${seen}`));
        });
      });
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing colour (SGR) sequences
      const plain = raw.replace(/\u001b\[[0-9;]*m/g, "");
      expect(plain).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] code {6}\d+s \(run \d+s\) · attempt-001/);
      expect(plain).toMatch(/transcript \S+attempts\/attempt-001\/coder_transcript\.log/);
      expect(plain).toContain("↳ editing src/csv-import.js now");
      const screen = screenOf(raw).filter((l) => l !== "");
      expect(
        screen.some((l) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|transcript |↳/.test(l)),
        screen.join("\n"),
      ).toBe(false);
      expect(screen.filter((l) => /^commit +✓ /.test(l))).toHaveLength(1);
      expect(screen.some((l) => l.startsWith("to take the result: git merge devflow/"))).toBe(true);
    },
    RUN_TIMEOUT_MS,
  );
});

function plainEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !(k in PLAIN_ENV)) env[k] = v;
  return { ...env, TERM: "xterm" };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}
