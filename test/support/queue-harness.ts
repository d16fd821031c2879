import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DaemonConfig } from "../../src/artifacts/schemas/ticket.js";
import { FsTicketQueue } from "../../src/daemon/fs-queue.js";
import { PACKAGE_ROOT } from "../../src/util/paths.js";

/** A temp dir holding a data root (`home/`), ticket files and git repositories, for the daemon's tests. */
export interface QueueSandbox {
  dir: string;
  root: string;
  queue(config?: Partial<DaemonConfig>): FsTicketQueue;
  /** Writes a ticket file (frontmatter lines + body) and returns its path. */
  ticket(name: string, frontmatter: string, body?: string): string;
  /** A real git repository with one commit, at `<dir>/<name>`. */
  repo(name: string): string;
  cleanup(): void;
}

export function queueSandbox(): QueueSandbox {
  const dir = mkdtempSync(join(tmpdir(), "devflow-daemon-"));
  const root = join(dir, "home");
  return {
    dir,
    root,
    queue: (config = {}) =>
      new FsTicketQueue(
        root,
        DaemonConfig.parse({ max_ticket_bytes: 65_536, lease_stale_seconds: 300, ...config }),
      ),
    ticket(name, frontmatter, body = "# A ticket\n") {
      const path = join(dir, name);
      writeFileSync(path, `---\n${frontmatter}\n---\n${body}`);
      return path;
    },
    repo(name) {
      const path = join(dir, name);
      mkdirSync(path, { recursive: true });
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: path });
      git("init", "-q", "-b", "main");
      git("commit", "-q", "--allow-empty", "-m", "first");
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Writes a ticket file into the sandbox and submits it; fails the test if the queue refused it.
 * The file name is random unless given, so one test can submit many tickets.
 */
export async function submitTicket(
  box: QueueSandbox,
  queue: FsTicketQueue,
  frontmatter: string,
  body = "Do the thing.\n",
  name = `t-${Math.random().toString(16).slice(2)}.md`,
): Promise<string> {
  const path = box.ticket(name, frontmatter, body);
  const result = await queue.submit(path, readFileSync(path));
  if (result.findings.length) throw new Error(`ticket refused: ${JSON.stringify(result.findings)}`);
  return result.id;
}

const TSX = join(PACKAGE_ROOT, "node_modules", ".bin", "tsx");
export const CLAIM_LOOP = join(PACKAGE_ROOT, "test", "daemon", "claim-loop.ts");

/** Runs test/daemon/claim-loop.ts in a real node process; resolves with its exit code and output. */
export function runClaimLoop(args: string[]): {
  pid: Promise<number>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
} {
  const child = spawn(TSX, [CLAIM_LOOP, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return {
    pid: new Promise((resolve) => child.once("spawn", () => resolve(child.pid ?? 0))),
    done: new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr }))),
  };
}
