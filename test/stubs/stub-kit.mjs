// Shared behaviour of the stub coder CLIs (test fixtures, never shipped). Each stub honours its
// CLI's documented flags, stdin, output files and exit codes; the test picks what happens through
// STUB_* variables, which reach the stub only because the test passes them as the request's env, or
// because a per-test wrapper script sets them (the iterate lane passes no extra env to a coder).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const scenario = process.env.STUB_SCENARIO ?? "success";
export const EDIT_FILE = process.env.STUB_EDIT_FILE ?? "stub-edit.txt";

/** Reads stdin to EOF, as the real CLIs do when it is not a TTY: an open, never-ended pipe hangs here. */
export async function readStdin() {
  if (process.stdin.isTTY) return "";
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** Records what the stub received, for the conformance suite's assertions. */
export function record(fields) {
  const file = process.env.STUB_RECORD_FILE;
  if (!file) return;
  writeFileSync(
    file,
    JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), env: process.env, ...fields }),
  );
}

/**
 * This process's pid as the test sees it: a confined coder runs in its own PID namespace, where
 * process.pid is namespace-local; /proc/self (the test's /proc) names the outer pid.
 */
export function outerPid() {
  try {
    return Number(readlinkSync("/proc/self"));
  } catch {
    return process.pid;
  }
}

export function markStarted() {
  if (process.env.STUB_STARTED_FILE) writeFileSync(process.env.STUB_STARTED_FILE, String(outerPid()));
}

/** Handles `--version` like the real CLIs; returns true when it did. */
export function handleVersion(name) {
  if (!process.argv.includes("--version")) return false;
  process.stdout.write(`${name} 9.9.9-stub\n`);
  return true;
}

/** `--name=value` or `--name value` (the latter only when `takesValue`). */
export function flagValue(argv, names) {
  for (let i = 0; i < argv.length; i++) {
    for (const name of names) {
      if (argv[i] === name) return argv[i + 1];
      if (argv[i].startsWith(`${name}=`)) return argv[i].slice(name.length + 1);
    }
  }
  return undefined;
}

export function hasFlag(argv, name) {
  return argv.includes(name) || argv.some((arg) => arg.startsWith(`${name}=`));
}

/**
 * An edit described by the file STUB_EDIT_SPEC names, `{ "path", "find", "replace" }` (path relative
 * to the worktree): lets a lane test have the stub make a real fix instead of writing EDIT_FILE.
 */
function editSpec() {
  const file = process.env.STUB_EDIT_SPEC;
  if (!file) return null;
  const spec = JSON.parse(readFileSync(file, "utf8"));
  if (typeof spec.path !== "string" || typeof spec.find !== "string" || typeof spec.replace !== "string") {
    fail(`stub: ${file} must be {"path", "find", "replace"} strings`, 2);
  }
  return spec;
}

/** The "coding" every successful stub does: one file changed in the worktree. Returns its path. */
export function editFile(dir, who) {
  const spec = editSpec();
  if (spec === null) {
    writeFileSync(join(dir, EDIT_FILE), `edited by the ${who} stub\n`);
    return EDIT_FILE;
  }
  const target = join(dir, spec.path);
  const before = readFileSync(target, "utf8");
  // A spec that no longer matches must fail the run, not pass it with no change.
  if (!before.includes(spec.find))
    fail(`stub ${who}: ${spec.path} does not contain ${JSON.stringify(spec.find)}`, 1);
  writeFileSync(target, before.replace(spec.find, spec.replace));
  return spec.path;
}

/** An agent that commits by itself (aider by default, Junie following an AGENTS.md rule). */
export function commitEdit(dir, who) {
  const edited = editFile(dir, who);
  const git = (args) => execFileSync("git", args, { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  git(["add", edited]);
  git([
    "-c",
    "user.name=stub",
    "-c",
    "user.email=stub@example.invalid",
    "commit",
    "-q",
    "-m",
    `${who} stub commit`,
  ]);
}

/** The value of the variable the test names as secret: printing it must never reach a transcript. */
export function secretValue() {
  return process.env[process.env.STUB_SECRET_ENV ?? ""] ?? "no-secret-configured";
}

export function hugeBytes() {
  return Number(process.env.STUB_HUGE_BYTES ?? 3 * 1024 * 1024);
}

/** Writes `bytes` of output made by `line(i)`, then resolves once it is flushed. */
export async function writeMany(bytes, line) {
  let written = 0;
  for (let i = 0; written < bytes; i++) {
    const text = line(i);
    written += Buffer.byteLength(text);
    if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once("drain", resolve));
  }
}

/**
 * Hangs like a stuck agent: ignores SIGTERM (so the runner has to escalate to SIGKILL) and leaves a
 * grandchild that also ignores it and holds stdout open; its pid goes to STUB_PID_FILE so the test
 * can check that nothing is left running.
 */
export function hang() {
  // The grandchild writes its own outer pid (see outerPid); "started" is marked once it has.
  const pidFile = process.env.STUB_PID_FILE;
  spawn(
    process.execPath,
    [
      "-e",
      "const fs = require('node:fs'); process.on('SIGTERM', () => {});" +
        " let pid = process.pid; try { pid = Number(fs.readlinkSync('/proc/self')); } catch {}" +
        " if (process.env.STUB_PID_FILE) fs.writeFileSync(process.env.STUB_PID_FILE + '.tmp', String(pid));" +
        " if (process.env.STUB_PID_FILE) fs.renameSync(process.env.STUB_PID_FILE + '.tmp', process.env.STUB_PID_FILE);" +
        " setInterval(() => {}, 1000);",
    ],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  process.on("SIGTERM", () => {});
  const ready = setInterval(() => {
    if (pidFile && !existsSync(pidFile)) return;
    clearInterval(ready);
    markStarted();
    process.stdout.write("working...\n");
  }, 10);
  setInterval(() => {}, 1000);
}

export function fail(message, code) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}
