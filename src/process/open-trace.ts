import { spawnSync } from "node:child_process";
import { systemTool } from "./system-tool.js";

/**
 * The files a run's processes opened, recorded from outside them (ADR 0072): the run is started
 * under `strace -f`, which follows every process and thread the run starts (workers, child
 * processes, a `sh -c` inside a loader) and writes each `open`/`openat`/`openat2` the kernel
 * completed, with the absolute path of the file behind the returned descriptor, to a pipe devflow
 * holds. Nothing inside the run can take an entry back: a line is in the pipe before the opening
 * call returns to the process that made it. Unlike reading source for loader shapes (ADR 0019), it
 * does not matter how a file was named (a glob, `eval("require")`, `importlib` under an alias, a
 * path built at run time): a file the run read was opened.
 *
 * What it cannot see, and why it is still sound for devflow's use: a file opened through io_uring
 * (refused: `io_uring_setup` is made to fail with ENOSYS, so libuv and every library fall back to
 * plain syscalls) or by handle (`open_by_handle_at`, refused with EPERM); a process cloned with
 * CLONE_UNTRACED (needs a raw `clone` call from native code: left, ADR 0072). The run never sees
 * the tracer: run-process.ts traces only a run in its own mount and PID namespace, with a private
 * /proc, so the run can neither signal strace nor reach its pipe; a trace that still ends early
 * (no exit line for the run, a signal) is `broken`.
 */
export type OpenTrace =
  /**
   * Every file a process of the run opened (absolute paths as the run saw them, sorted, unique), and
   * those among them it opened to write or create (`O_WRONLY`, `O_RDWR`, `O_CREAT`, `O_TRUNC`, `creat`).
   */
  | {
      kind: "traced";
      files: string[];
      written: string[];
      /**
       * `files` in the order each was first opened, as strace wrote the lines (in one process, the
       * order its calls returned). Absent where a trace was made up (tests): no order is known.
       */
      firstOpened?: string[];
    }
  /** The trace cannot be believed (cut short, over its cap, a line it cannot read): fail closed. */
  | { kind: "broken"; reason: string }
  /** No tracer on this machine (no strace, ptrace refused, turned off): the caller says what that leaves. */
  | { kind: "unavailable"; reason: string };

/** Turns the trace off (DEVFLOW_NO_OPEN_TRACE=1): for tests of the fallback and machines where ptrace is slow. */
export const NO_OPEN_TRACE_ENV = "DEVFLOW_NO_OPEN_TRACE";

/**
 * Raises or lowers the trace's cap (MiB): what reading it keeps, the distinct paths the run opened
 * (64 MiB is about a million paths of 60 bytes) and the line being read.
 */
export const OPEN_TRACE_CAP_ENV = "DEVFLOW_OPEN_TRACE_CAP_MB";

/** Bytes the trace reader keeps per run (default 64 MiB); beyond them the trace is broken (never silently cut). */
export function openTraceCapBytes(): number {
  const mb = Number(process.env[OPEN_TRACE_CAP_ENV]);
  return (Number.isFinite(mb) && mb > 0 ? mb : 64) * 1024 * 1024;
}

/** The descriptor strace writes to: the run's stdio index 3, a pipe only devflow reads. */
export const OPEN_TRACE_FD = 3;

/**
 * What the run may not do once it runs (a namespace or a mount of its own: review, stop 33, a
 * bind mount of a program file over an unchanged test data file, made in a user namespace the run
 * created with no capability, changed what the seam read with nothing changed on disk). devflow's
 * own setup makes these calls before it hands over (`setpriv`'s execve), so they are judged after.
 */
const NAMESPACE_CALLS =
  "unshare,setns,mount,umount2,open_tree,move_mount,fsopen,fsmount,fspick,mount_setattr,pivot_root,chroot";
const TRACED = `execve,open,openat,openat2,creat,io_uring_setup,open_by_handle_at,clone,clone3,${NAMESPACE_CALLS}`;

/**
 * strace's arguments, `--` and a shell that closes the trace's descriptor before it runs `argv`
 * (`exec "$@"`): the run's own processes never hold it. strace writes through a relay (`-o |…`): the
 * descriptor node gives a child is a socket, which strace cannot open by `/proc/self/fd/N`.
 *
 * The relay is `dd` with an output block of 64 KiB, not `cat` (stop 34): strace writes each line on
 * its own, cat passed each on as one write, and devflow read each as one chunk: ~1,300 reads for a
 * `node -e 0` seam run, ~35 ms of devflow's CPU per run, ~100 ms per attempt (3 seam runs). dd
 * gathers reads into full output blocks (`ibs` ≠ `obs`), so the trace arrives in a few writes. A
 * relay that died before its last write leaves the trace without its exit line: broken, as before.
 */
export function openTraceArgv(strace: string, argv: readonly string[]): string[] {
  const dd = systemTool("dd") ?? "/bin/dd";
  return [
    strace,
    "-f", // every process and thread the run starts
    "-q", // no attach/detach notes; exit lines stay (the root's is required)
    "-y", // the returned descriptor's path: `= 3</abs/path>`, whatever dirfd and cwd were
    "--seccomp-bpf", // only the traced calls stop the process: the run is not slowed by the rest
    "-e",
    `trace=${TRACED}`,
    "-e",
    "signal=none",
    "-e",
    "inject=io_uring_setup:error=ENOSYS",
    "-e",
    "inject=open_by_handle_at:error=EPERM",
    "-s",
    "0", // argument strings are not needed (paths come from the descriptors): keeps the trace small
    "-o",
    `|exec ${dd} ibs=4096 obs=65536 status=none >&${OPEN_TRACE_FD}`,
    "--",
    "/bin/sh",
    "-c",
    `exec ${OPEN_TRACE_FD}>&-; exec "$@"`,
    "devflow-traced",
    ...argv,
  ];
}

let probed: { strace: string } | { reason: string } | undefined;

/** The tracer to run under, or why there is none. Probed once per process (one traced `true`). */
export function openTracer(): { strace: string } | { reason: string } {
  if (process.env[NO_OPEN_TRACE_ENV] === "1") return { reason: `${NO_OPEN_TRACE_ENV}=1 turned it off` };
  if (probed !== undefined) return probed;
  if (process.platform !== "linux") {
    probed = { reason: `no ptrace tracer on ${process.platform}` };
    return probed;
  }
  const strace = systemTool("strace");
  if (strace === null) {
    probed = { reason: "strace is not installed (apt-get install strace)" };
    return probed;
  }
  const trueBin = systemTool("true") ?? "/bin/true";
  const run = spawnSync(strace, openTraceArgv(strace, [trueBin]).slice(1), {
    stdio: ["ignore", "ignore", "pipe", "pipe"],
    timeout: 10_000,
  });
  const trace = run.output?.[3]?.toString() ?? "";
  const parsed = run.status === 0 ? parseOpenTrace(trace, 0) : null;
  probed =
    parsed?.kind === "traced"
      ? { strace }
      : {
          reason: `strace could not trace a run here (${run.error?.message ?? (run.stderr?.toString().trim().split("\n")[0] || (parsed?.kind === "broken" ? parsed.reason : `exit ${run.status}`))})`,
        };
  return probed;
}

/** For tests: probe again. */
export function resetOpenTracer(): void {
  probed = undefined;
}

const LINE = /^(\d+) +(.*)$/;
const CALLS = TRACED.split(",").join("|");
const FORBIDDEN = new Set(NAMESPACE_CALLS.split(","));
/** The call a line is about, read from its start (strace writes it; nothing of the run's comes first). */
const CALL_DONE = new RegExp(`^(${CALLS})\\(`);
const CALL_RESUMED = new RegExp(`^<\\.\\.\\. (${CALLS}) resumed>`);
const UNFINISHED = / <unfinished \.\.\.>$/;
/**
 * A call strace stopped following mid-way: the process was dropped while the call had not returned
 * (stop 34, under load: the run's PID namespace ended and killed a `sleep &` inside its openat of
 * /dev/null, and with `-e signal=none` strace writes no "killed by" line, only this). It read
 * nothing afterwards: a process leaves strace early only by dying or by strace detaching, and a
 * detaching strace either leaves the root's exit line out (broken) or comes after the root's exit,
 * which ends the run's PID namespace and every process in it first.
 */
const DETACHED = / <detached \.\.\.>$/;
const EXITED =
  /^\+\+\+ (?:exited with (\d+)|killed by (SIG\w+)(?: \(core dumped\))?|superseded by execve in pid \d+) \+\+\+$/;
const OPENS = new Set(["open", "openat", "openat2", "creat"]);
/** An open's flags asking to write or create (read on the call with its strings and `<path>` notes taken out). */
const WRITE_FLAG = /\bO_(?:WRONLY|RDWR|CREAT|TRUNC)\b/;
const QUOTED_OR_NOTED = /"(?:[^"\\]|\\.)*"|<[^<>]*>/g;
/** Whether an open call's line (or its first half) asks to write: the run chose the path, not the flags. */
const opensToWrite = (call: string, rest: string): boolean =>
  call === "creat" || WRITE_FLAG.test(rest.replace(QUOTED_OR_NOTED, ""));
/**
 * How a finished call's line ends, read from its end: a path the run chose (the call's argument,
 * the descriptor's path) can hold `) = -1 ENOENT (` or ` <unfinished ...>` (measured: a file named
 * `a) = -1 ENOENT (x` read as a failed open when the result was taken after the last `) = `), but
 * strace escapes `<` and `>` inside a descriptor's path, so a line ending in `<…>` with neither
 * inside ends in that descriptor. `(deleted)`: a file already unlinked (`O_TMPFILE`: pytest's).
 */
const OPENED_FD = /\) += \d+<([^<>]*)>(?:\(deleted\))?(?: \(INJECTED\))?$/;
const FAILED = /\) += (?:-1|\?) E[A-Z0-9]+ \([^()]*\)(?: \(INJECTED\))?$/;
/** A call the process did not live to see return (killed in it): it read nothing. */
const NO_RETURN = /\) += \?(?: <unavailable>)?$/;
/** A call that returned a number (clone's child pid, a mount call's 0). */
const NUMBER_DONE = /\) += \d+$/;

/**
 * Reads strace's output for one run whose root process exited with `exitCode` (as devflow saw it).
 * Every line must be one strace writes for the traced calls (a call, its unfinished and resumed
 * halves, an exit line); anything else (a line written into the pipe by the run, a cut line) makes
 * the trace broken. The first line must be the root's execve and the root's exit line must be
 * there, with the exit code devflow saw: otherwise the tracer did not see the run to its end.
 * `handOver`: the program devflow's namespace setup runs last (setpriv), after whose execve every
 * namespace or mount call is the run's, and makes the trace broken; without it, any such call does.
 */
export function parseOpenTrace(text: string, exitCode: number | null, handOver?: string): OpenTrace {
  const reader = openTraceReader(handOver, Number.POSITIVE_INFINITY);
  reader.push(Buffer.from(text, "utf8"));
  return reader.end(exitCode);
}

/** parseOpenTrace fed as the trace arrives: `push` each chunk, `end` once the pipe closed. */
export interface OpenTraceReader {
  push(chunk: Buffer): void;
  /** Over the cap: what it keeps (distinct paths and the line being read) passed `capBytes`. */
  readonly over: boolean;
  end(exitCode: number | null): OpenTrace;
}

/**
 * Reads the trace line by line as it arrives (stop 34: the whole trace was held until the run
 * ended, 64 MiB at most, so a run of more than ~600,000 opens was refused). What it keeps is the
 * distinct paths opened and the line being read; `capBytes` bounds that sum (a run opening millions
 * of distinct files, a line that never ends). Lines split on the newline byte, which no UTF-8
 * character contains, so each line decodes as it did within the whole text.
 */
export function openTraceReader(handOver?: string, capBytes = openTraceCapBytes()): OpenTraceReader {
  const files = new Set<string>();
  const written = new Set<string>();
  /** Per pid, whether its open strace has written the first half of (unfinished) asks to write. */
  const pendingWrite = new Map<string, boolean>();
  let kept = 0;
  let over = false;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNo = 0;
  let failure: OpenTrace | null = null;
  let root: string | null = null;
  let rootExit: string | null = null;
  // Before devflow's setup hands the namespace over to the run, namespace calls are devflow's own.
  let handedOver = false;

  /** Reads one line: null when it is fine, else why it breaks the trace. */
  const readLine = (line: string): string | null => {
    const m = LINE.exec(line);
    if (!m) return "is not strace's";
    const [, pid, rest] = m as unknown as [string, string, string];
    if (root === null) {
      if (!rest.startsWith("execve(")) return "is not the run's first execve";
      root = pid;
    }
    const exited = EXITED.exec(rest);
    if (exited) {
      if (pid === root) rootExit = exited[1] ?? exited[2] ?? null;
      return null;
    }
    const call = (CALL_DONE.exec(rest) ?? CALL_RESUMED.exec(rest))?.[1];
    if (call === undefined) return "is not a traced call";
    const failed = FAILED.test(rest) || NO_RETURN.test(rest);
    if (call === "execve" && handOver !== undefined && rest.startsWith(`execve(${JSON.stringify(handOver)},`))
      handedOver = true;
    // Judged on the line that names the call (a clone's flags are on its first half): tried is enough.
    const own =
      FORBIDDEN.has(call) || ((call === "clone" || call === "clone3") && rest.includes("CLONE_NEW"));
    if (own && !failed && (handedOver || handOver === undefined))
      return `is the run's own ${call}: a verification run may not make namespaces or mounts`;
    // Only the start of a call strace could not finish writing (another process ran in between):
    // its result comes on the `resumed` line. A resumed line ending so was killed in the call.
    if (UNFINISHED.test(rest) && !rest.startsWith("<...")) {
      if (OPENS.has(call)) pendingWrite.set(pid, opensToWrite(call, rest));
      return null;
    }
    // The flags of a resumed open are on its first half.
    const writes = rest.startsWith("<...")
      ? (pendingWrite.get(pid) ?? false) || opensToWrite(call, rest)
      : opensToWrite(call, rest);
    if (rest.startsWith("<...")) pendingWrite.delete(pid);
    if (DETACHED.test(rest)) return null;
    if (failed) return null;
    const fd = OPENED_FD.exec(rest);
    if (!OPENS.has(call)) {
      // No other traced call returns a descriptor: such a line is an open with text glued before
      // it (review, stop 33: a run that reached strace's pipe wrote "999 execve(" without a newline).
      if (fd || !NUMBER_DONE.test(rest)) return "has a result devflow cannot read";
      return null;
    }
    if (!fd) return "has an open without its file's path";
    const path = unescapeStrace(fd[1] as string);
    if (path === null) return "has a path that cannot be read";
    if (path.startsWith("/") && !files.has(path)) {
      files.add(path);
      kept += path.length;
    }
    if (writes && path.startsWith("/") && !written.has(path)) {
      written.add(path);
      kept += path.length;
    }
    return null;
  };

  const read = (line: string): void => {
    lineNo += 1;
    const why = readLine(line);
    if (why !== null)
      failure = {
        kind: "broken",
        reason: `line ${lineNo} of the open trace ${why}: ${JSON.stringify(line.length <= 200 ? line : `${line.slice(0, 100)}…${line.slice(-100)}`)}`,
      };
  };

  const overCap = (): boolean => {
    if (!over && kept + pendingBytes > capBytes) over = true;
    return over;
  };

  return {
    get over() {
      return over;
    },
    push(chunk) {
      if (failure !== null || over) return; // the answer is known: the rest is drained unread
      let at = 0;
      for (let nl = chunk.indexOf(10, at); nl >= 0 && failure === null; nl = chunk.indexOf(10, at)) {
        const piece = chunk.subarray(at, nl);
        const line = pendingBytes === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        pendingBytes = 0;
        read(line.toString("utf8"));
        at = nl + 1;
        if (overCap()) return;
      }
      if (failure !== null || at >= chunk.length) return;
      pending.push(chunk.subarray(at));
      pendingBytes += chunk.length - at;
      overCap();
    },
    end(exitCode) {
      if (failure === null && !over && pendingBytes > 0) {
        read(Buffer.concat(pending).toString("utf8"));
        pending = [];
        pendingBytes = 0;
      }
      if (failure !== null) return failure;
      if (over)
        return {
          kind: "broken",
          reason: `the open trace was over its cap of ${capBytes / 1024 / 1024} MiB of distinct paths (raise it with ${OPEN_TRACE_CAP_ENV}=<MiB>)`,
        };
      if (root === null) return { kind: "broken", reason: "the open trace is empty: the run was not traced" };
      if (rootExit === null)
        return {
          kind: "broken",
          reason: "the open trace has no exit line for the run: the tracer did not see it end",
        };
      if (exitCode !== null && rootExit !== String(exitCode))
        return {
          kind: "broken",
          reason: `the open trace says the run ended with ${rootExit}, devflow saw exit ${exitCode}`,
        };
      return {
        kind: "traced",
        files: [...files].sort(),
        written: [...written].sort(),
        firstOpened: [...files],
      };
    },
  };
}

/** strace's C-style escapes (`\\`, `\"`, `\n`, `\t`, `\xHH`, octal `\NNN`) back to text; null if malformed. */
export function unescapeStrace(text: string): string | null {
  if (!text.includes("\\")) return text;
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, a: 7, b: 8 };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const n = text[i + 1];
    if (n === undefined) return null;
    if (n === "x") {
      const hex = text.slice(i + 2, i + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      bytes.push(Number.parseInt(hex, 16));
      i += 3;
    } else if (/[0-7]/.test(n)) {
      const oct = /^[0-7]{1,3}/.exec(text.slice(i + 1))?.[0] as string;
      bytes.push(Number.parseInt(oct, 8) & 0xff);
      i += oct.length;
    } else if (simple[n] !== undefined) {
      bytes.push(simple[n] as number);
      i += 1;
    } else {
      bytes.push(...Buffer.from(n, "utf8"));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
