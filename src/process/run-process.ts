import { type ChildProcess, spawn } from "node:child_process";
import { rmSync, statSync, writeFileSync } from "node:fs";
import { secretsFromEnv } from "../util/redact.js";
import { killPoint } from "../util/test-kill-point.js";
import { MIN_EXCERPT_BYTES } from "../util/truncate.js";
import {
  endMarkedProcesses,
  markedProcessesMayLive,
  markedRunEnded,
  markedRunStarted,
  newRunMarker,
  pidNamespacePrefix,
  processesWithMarker,
  RUN_MARKER_ENV,
} from "./containment.js";
import { forgetGroup, recordGroup } from "./group-ledger.js";
import { stdioClosingInherited } from "./inherited-fds.js";
import { mountNamespacePrefix, namespaceHandOverProgram } from "./mount-namespace.js";
import { OPEN_TRACE_FD, type OpenTrace, openTraceArgv, openTraceReader, openTracer } from "./open-trace.js";
import { OutputCapture } from "./output-capture.js";
import { groupIsAlive, terminateGroup, trackGroup, untrackGroup } from "./process-group.js";
import type { ProcessRunOptions, ProcessRunResult } from "./types.js";

export const DEFAULT_KILL_GRACE_MS = 2000;
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_EXCERPT_BYTES = 64 * 1024;
/** After the child exits, how long its pipes may take to deliver what is still buffered. */
const DRAIN_MS = 250;
/** How long a traced run's relay may take to pass on the trace's last block after the tracer exited. */
const TRACE_DRAIN_MS = 5_000;

type Outcome = Pick<
  ProcessRunResult,
  "exitCode" | "signal" | "timedOut" | "aborted" | "spawnError" | "survivors" | "pidNamespace" | "openTrace"
>;

const NOT_STARTED: Outcome = {
  exitCode: null,
  signal: null,
  timedOut: false,
  aborted: false,
  spawnError: null,
  survivors: [],
  pidNamespace: false,
};

/**
 * Runs one child process the way every devflow child must run: its own process group, exactly
 * the given environment, stdin closed or fully written, output redacted and bounded, and the
 * whole group ended on timeout or abort. Resolves for any exit status; throws only for invalid
 * options or when `onStdoutLine` threw (after the child has been fully dealt with).
 */
export async function runProcess(opts: ProcessRunOptions): Promise<ProcessRunResult> {
  const limits = checkOptions(opts);
  const started = performance.now();
  const capture = new OutputCapture({
    knownSecrets: secretsFromEnv(opts.env),
    transcriptCapBytes: limits.maxOutputBytes,
    excerptCapBytes: limits.maxExcerptBytes,
    ...(opts.transcriptPath !== undefined ? { transcriptPath: opts.transcriptPath } : {}),
    ...(opts.onStdoutLine !== undefined ? { onStdoutLine: opts.onStdoutLine } : {}),
  });
  let outcome: Outcome;
  try {
    outcome = await supervise(opts, capture, limits.killGraceMs);
  } catch (error) {
    capture.finish();
    throw error;
  }
  const output = capture.finish();
  const lineFailure = capture.stdoutLineFailure;
  if (lineFailure !== null) throw lineFailure.error;
  return {
    ...outcome,
    output: output.text,
    outputTruncated: output.truncated,
    totalOutputBytes: capture.totalBytes,
    durationMs: Math.round(performance.now() - started),
  };
}

interface Limits {
  killGraceMs: number;
  maxOutputBytes: number;
  maxExcerptBytes: number;
}

function checkOptions(opts: ProcessRunOptions): Limits {
  const positive = (name: string, value: number, min: number): number => {
    if (!Number.isFinite(value) || value < min) {
      throw new RangeError(`runProcess: ${name} must be a number of at least ${min}, got ${value}`);
    }
    return value;
  };
  if (opts.command.trim() === "")
    throw new TypeError("runProcess: command is empty; pass the executable to run");
  positive("timeoutMs", opts.timeoutMs, 1);
  const maxOutputBytes = positive("maxOutputBytes", opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES, 0);
  const defaultExcerpt = Math.max(MIN_EXCERPT_BYTES, Math.min(maxOutputBytes, DEFAULT_MAX_EXCERPT_BYTES));
  return {
    killGraceMs: positive("killGraceMs", opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS, 0),
    maxOutputBytes,
    maxExcerptBytes: Math.floor(
      positive("maxExcerptBytes", opts.maxExcerptBytes ?? defaultExcerpt, MIN_EXCERPT_BYTES),
    ),
  };
}

/** Spawns the child and waits until it and every process of its group are gone. */
async function supervise(
  opts: ProcessRunOptions,
  capture: OutputCapture,
  killGraceMs: number,
): Promise<Outcome> {
  if (opts.signal?.aborted) return { ...NOT_STARTED, aborted: true };
  const cwdProblem = checkCwd(opts.cwd);
  if (cwdProblem !== null) return { ...NOT_STARTED, spawnError: cwdProblem };

  // `sh -c <line> sh <args...>`: extra args become "$1"... of the command line, never re-parsed.
  const [command, commandArgs] = opts.shell
    ? ["/bin/sh", ["-c", opts.command, "sh", ...(opts.args ?? [])]]
    : [opts.command, opts.args ?? []];
  // A confined run: its own PID namespace where possible, and a marker in its environment.
  const marker = opts.confine ? (opts.runMarker ?? newRunMarker()) : null;
  // With a mount plan (coders, ADR 0025) also its own mount namespace where that works.
  const mountNamespace = opts.confine && opts.mounts ? mountNamespacePrefix(opts.mounts) : null;
  const namespace = opts.confine ? (mountNamespace ?? pidNamespacePrefix()) : null;
  const [confinedFile, confinedArgs] =
    namespace === null
      ? [command, commandArgs]
      : [namespace[0] as string, [...namespace.slice(1), command, ...commandArgs]];
  // The tracer goes outside the namespaces. Only for a run in a mount namespace of its own (with its
  // PID namespace and private /proc): strace waits for every process it traces, so a run that leaves
  // one behind would keep it (and the run) alive until the timeout where no namespace ends them with
  // the run's first process; a run that sees strace's pid could kill it (strace 6.1 has no
  // --kill-on-exit); and a run that sees the host's /proc could open strace's pipe through
  // /proc/<cat>/fd/0, to read lines away or glue its own text onto them (review, stop 33).
  const tracer = !opts.traceOpens
    ? null
    : mountNamespace === null
      ? { reason: "the run has no mount and PID namespace of its own here, so it is not traced" }
      : openTracer();
  const strace = tracer !== null && "strace" in tracer ? tracer.strace : null;
  const [file, args] =
    strace === null
      ? [confinedFile, confinedArgs]
      : [strace, openTraceArgv(strace, [confinedFile, ...confinedArgs]).slice(1)];
  const env = marker === null ? opts.env : { ...opts.env, [RUN_MARKER_ENV]: marker };
  // node:child_process directly, as for git (git-process.ts; issue 11): execa's option handling,
  // stream plumbing and result object cost ~0.8 ms of devflow's CPU per run on top of the spawn
  // (measured, same options), and every coder, seam and test run comes through here. Nothing of
  // execa's was used beyond the spawn: no buffering, no rejection, no kill on devflow's exit (a
  // detached child never got one), no PATH lookup of its own.
  if (marker !== null) markedRunStarted(marker);
  let markerEnded = false;
  const endMarkedRun = (provenGone: boolean): void => {
    if (marker === null || markerEnded) return;
    markerEnded = true;
    markedRunEnded(marker, provenGone);
  };
  const started = startChild(file, args, opts.cwd, env, opts.stdin, strace !== null);
  if ("spawnError" in started) {
    endMarkedRun(false);
    const { code, message } = await started.spawnError;
    return { ...NOT_STARTED, spawnError: describeSpawnFailure(opts, code, message) };
  }
  const { child, pgid } = started;
  trackGroup(pgid);
  // Recorded before any wait: a SIGKILLed devflow leaves the group to the next run's sweep (ADR 0033).
  const recorded = recordGroup(pgid, opts.shell ? "/bin/sh" : opts.command);
  if (opts.groupIdFile) writeFileSync(opts.groupIdFile, String(pgid));
  killPoint("process.spawned");
  child.stdout?.on("data", (chunk: Buffer) => capture.write("stdout", chunk));
  child.stderr?.on("data", (chunk: Buffer) => capture.write("stderr", chunk));
  const trace = strace === null ? null : collectTrace(child, namespaceHandOverProgram());
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  // Exited and every pipe closed (or destroyed below): what awaiting execa's child meant.
  const settled = new Promise<boolean>((resolve) => child.once("close", () => resolve(true)));

  let stopReason: "timeout" | "abort" | null = null;
  let ending: Promise<unknown> | null = null;
  const endGroup = (): Promise<unknown> => {
    ending ??= terminateGroup(pgid, killGraceMs);
    return ending;
  };
  const stop = (reason: "timeout" | "abort"): void => {
    if (stopReason !== null) return;
    stopReason = reason;
    void endGroup();
  };
  const timer = setTimeout(() => stop("timeout"), opts.timeoutMs);
  const onAbort = (): void => stop("abort");
  opts.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    const exit = await exited;
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    // The child is the tracer: once it exited, its relay only has its last block to write. Waited
    // for before the group is ended below, which would kill a relay still writing and cut the trace
    // (stop 34: a correct run refused as "no exit line" under load). Only the relay holds that pipe.
    if (trace !== null) await settledWithin(trace.ended, TRACE_DRAIN_MS);
    // Let the pipes deliver the last output, then end whatever the child left running: a
    // background process must not outlive the run (and may be holding our pipes open).
    await settledWithin(settled, DRAIN_MS);
    const leftovers = ending === null && groupIsAlive(pgid);
    await endGroup();
    // A namespace's first process that exited by itself took every process of the run with it.
    // Only with a mount plan: its own /proc and no capabilities. With the plain PID-namespace
    // prefix a run (as root) can see its `unshare` in the host's /proc and rewrite it through
    // /proc/<pid>/mem to fork a marked process back in the host's namespace (review, stop 36).
    endMarkedRun(mountNamespace !== null && stopReason === null && exit.signal === null && !leftovers);
    // Whatever left the group (setsid, double fork) but still carries the run's marker.
    const escaped = marker === null || !markedProcessesMayLive(marker) ? [] : processesWithMarker(marker);
    const survivors = marker === null || escaped.length === 0 ? [] : await endMarkedProcesses(marker);
    if (!(await settledWithin(settled, DRAIN_MS))) {
      // A process that escaped the group (setsid) still holds the pipes: stop reading.
      child.stdout?.destroy();
      child.stderr?.destroy();
      await settled;
    }
    if (leftovers)
      capture.note("[devflow: the command left background processes running; they were terminated]");
    if (escaped.length > 0)
      capture.note(`[devflow: ${escaped.length} process(es) that left the process group were killed]`);
    if (survivors.length > 0)
      capture.note(`[devflow: process(es) ${survivors.join(", ")} of this run could not be ended]`);
    const openTrace: OpenTrace | undefined =
      tracer === null
        ? undefined
        : trace === null
          ? { kind: "unavailable", reason: "reason" in tracer ? tracer.reason : "no tracer" }
          : trace.result(exit.code, exit.signal);
    return {
      ...(openTrace ? { openTrace } : {}),
      exitCode: exit.code,
      signal: exit.signal,
      timedOut: stopReason === "timeout",
      aborted: stopReason === "abort",
      spawnError: null,
      survivors,
      pidNamespace: namespace !== null,
    };
  } finally {
    endMarkedRun(false);
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    untrackGroup(pgid);
    forgetGroup(recorded);
    if (opts.groupIdFile) rmSync(opts.groupIdFile, { force: true });
  }
}

/**
 * Spawns the child in its own process group with exactly `env`, stdin closed or written whole,
 * stdout and stderr piped. A child that could not be started gives its error code and message
 * (ENOENT, EACCES: node reports them on the next tick, with no pid).
 */
function startChild(
  file: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  stdin: ProcessRunOptions["stdin"],
  tracePipe = false,
):
  | { child: ChildProcess; pgid: number }
  | { spawnError: Promise<{ code: string | undefined; message: string }> } {
  const input = stdin === undefined || stdin === "closed" ? null : stdin;
  const stdio = stdioClosingInherited([input === null ? "ignore" : "pipe", "pipe", "pipe"]);
  // The open trace's pipe (open-trace.ts) replaces whatever the inherited list put at its index.
  if (tracePipe) stdio.splice(OPEN_TRACE_FD, 1, "pipe");
  let child: ChildProcess;
  try {
    child = spawn(file, [...args], {
      cwd,
      env,
      detached: true, // its own process group, so a timeout can end grandchildren too
      // Descriptors devflow's own parent left open (no close-on-exec) become /dev/null: ADR 0070.
      stdio,
      windowsHide: true,
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return { spawnError: Promise.resolve({ code: e.code, message: e.message }) };
  }
  const spawnError = new Promise<{ code: string | undefined; message: string }>((resolve) => {
    child.once("error", (error: NodeJS.ErrnoException) =>
      resolve({ code: error.code, message: error.message }),
    );
  });
  // A later error (a signal to a group already gone) must not be an unhandled 'error' event.
  child.on("error", () => {});
  if (child.pid === undefined) return { spawnError };
  if (input !== null && child.stdin) {
    // The child may exit before reading all of it: its closed pipe is not devflow's failure.
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  }
  return { child, pgid: child.pid };
}

/**
 * Reads the open trace from the child's trace pipe as it arrives (openTraceReader: over its cap the
 * trace is broken, never cut silently). `result` is asked once the child has exited and its pipes
 * are drained.
 */
function collectTrace(
  child: ChildProcess,
  handOver: string | undefined,
): {
  /** Resolves (true) when the trace's pipe has ended. */
  ended: Promise<boolean>;
  result(code: number | null, signal: NodeJS.Signals | null): OpenTrace;
} {
  // Read as it arrives: only the distinct paths are kept, never the whole trace (stop 34).
  const reader = openTraceReader(handOver);
  let sawEnd = false;
  const pipe = child.stdio[OPEN_TRACE_FD] as NodeJS.ReadableStream | null | undefined;
  pipe?.on("data", (chunk: Buffer) => reader.push(chunk));
  const ended = new Promise<boolean>((resolve) => {
    if (!pipe) return resolve(true);
    pipe.on("end", () => {
      sawEnd = true;
      resolve(true);
    });
    pipe.on("close", () => resolve(true));
    pipe.on("error", () => resolve(true));
  });
  return {
    ended,
    result(code, signal) {
      if (pipe === null || pipe === undefined)
        return { kind: "broken", reason: "the open trace had no pipe" };
      if (reader.over) return reader.end(code);
      if (!sawEnd)
        return { kind: "broken", reason: "the open trace was still being written when the run was over" };
      if (signal !== null)
        return {
          kind: "broken",
          reason: `the run (and its tracer) ended by ${signal}: the trace may be cut short`,
        };
      return reader.end(code);
    },
  };
}

/** Whether `settled` resolves within `ms`; the timer is cleared so it never holds the event loop. */
async function settledWithin(settled: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([settled, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function checkCwd(cwd: string): string | null {
  try {
    if (statSync(cwd).isDirectory()) return null;
    return `working directory ${cwd} is not a directory`;
  } catch {
    return `working directory ${cwd} does not exist; create it or pass an existing directory as cwd`;
  }
}

function describeSpawnFailure(opts: ProcessRunOptions, code: string | undefined, detail: string): string {
  const what = opts.shell ? "/bin/sh (to run a shell command)" : `"${opts.command}"`;
  switch (code) {
    case "ENOENT":
      return `cannot run ${what}: command not found (ENOENT). Install it or fix the name; the child's PATH is ${opts.env.PATH ?? "(unset)"}`;
    case "EACCES":
      return `cannot run ${what}: permission denied (EACCES). Make the file executable (chmod +x) or check the path`;
    default:
      return `cannot run ${what}: ${code ?? "spawn failed"}: ${detail}`;
  }
}
