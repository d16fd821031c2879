/**
 * A repository "somewhere else" for URL tasks: a real bare repository, reachable as a `file://`
 * URL or served read-only by a real `git daemon` on 127.0.0.1. Never the internet.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tempDir } from "./lane-harness.js";

/** A bare copy of `repo` (a fixture) in a temp dir; `url` is its file:// URL. */
export function bareRemote(repo: string): { dir: string; url: string } {
  const dir = join(tempDir("devflow-remote-"), "remote.git");
  execFileSync("git", ["clone", "-q", "--bare", repo, dir]);
  return { dir, url: pathToFileURL(dir).href };
}

/** A TCP port nothing listens on right now (bound once by the OS, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (!address || typeof address === "string") throw new Error("no TCP port from the OS");
  return address.port;
}

export interface GitDaemon {
  /** `git://127.0.0.1:<port>/<name>` for a repository in the served folder. */
  url: (name: string) => string;
  stop: () => Promise<void>;
}

/**
 * `git daemon` serving `baseDir` read-only (upload-pack only, the default: a push is refused) on
 * 127.0.0.1 and a free port. Resolves once `git ls-remote` gets an answer from it.
 */
export async function startGitDaemon(baseDir: string, probeRepo: string): Promise<GitDaemon> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    "git",
    [
      "daemon",
      "--reuseaddr",
      "--export-all",
      "--listen=127.0.0.1",
      `--port=${port}`,
      `--base-path=${baseDir}`,
      baseDir,
    ],
    { stdio: "ignore" },
  );
  const url = (name: string) => `git://127.0.0.1:${port}/${name}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const ended = new Promise<void>((done) => child.once("exit", () => done()));
    child.kill("SIGTERM");
    await ended;
  };
  for (let tries = 0; tries < 100; tries++) {
    if (child.exitCode !== null) throw new Error(`git daemon exited with ${child.exitCode}`);
    try {
      execFileSync("git", ["ls-remote", url(probeRepo)], { stdio: "ignore", timeout: 5000 });
      return { url, stop };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await stop();
  throw new Error(`git daemon on port ${port} never answered`);
}
