import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resetContainmentProbe } from "./containment.js";
import { baseEnv } from "./env.js";
import { type MountPlan, resetMountProbe } from "./mount-namespace.js";
import {
  NO_OPEN_TRACE_ENV,
  OPEN_TRACE_CAP_ENV,
  openTraceReader,
  openTracer,
  parseOpenTrace,
  resetOpenTracer,
  unescapeStrace,
} from "./open-trace.js";
import { runProcess } from "./run-process.js";

const ROOT = '100 execve("/bin/sh", [...], 0x7ffd /* 3 vars */) = 0';
const EXIT0 = "100 +++ exited with 0 +++";
/** The trace of `lines`, without the first-open order (asserted by its own test). */
const traced = (lines: string[], exit: number | null = 0) => {
  const trace = parseOpenTrace(`${lines.join("\n")}\n`, exit);
  if (trace.kind !== "traced") return trace;
  const { firstOpened: _order, ...rest } = trace;
  return rest;
};

describe("parseOpenTrace", () => {
  it("keeps the paths of successful opens, from whole and resumed lines, and ignores failed and injected calls", () => {
    expect(
      traced([
        ROOT,
        '100 openat(AT_FDCWD</w>, ""..., O_RDONLY|O_CLOEXEC) = 3</w/test/a.js>',
        '101 openat(AT_FDCWD</w>, ""..., O_RDONLY <unfinished ...>',
        "102 +++ exited with 1 +++",
        "101 <... openat resumed>) = 4</w/test/cases/b.json>",
        '100 openat(AT_FDCWD</w>, ""..., O_RDONLY) = -1 ENOENT (No such file or directory)',
        "100 io_uring_setup(8, 0x7ffd) = -1 ENOSYS (Function not implemented) (INJECTED)",
        '100 open(""..., O_WRONLY|O_CREAT, 0644) = 5</w/out.txt>',
        // Found by the pytest lane (stop 33): an O_TMPFILE file has no name, only "(deleted)".
        '100 openat(AT_FDCWD</w>, "/tmp", O_RDWR|O_EXCL|O_TMPFILE, 0600) = 7</tmp/#4243488>(deleted)',
        '100 openat(AT_FDCWD</w>, ""..., O_RDONLY) = 6<pipe:[123]>',
        EXIT0,
      ]),
    ).toEqual({
      kind: "traced",
      files: ["/tmp/#4243488", "/w/out.txt", "/w/test/a.js", "/w/test/cases/b.json"],
      written: ["/tmp/#4243488", "/w/out.txt"],
    });
  });

  // ADR 0074 (stop 37): what a run wrote itself is told apart from what it only read, so a file
  // outside the checkout that changed during the task is judged only when someone else wrote it.
  // The flags of a split call are on its first half; a path or a `<dir>` note naming a flag is no flag.
  it("tells the files a run opened to write or create from those it only read", () => {
    expect(
      traced([
        ROOT,
        '101 openat(AT_FDCWD</w>, "x", O_WRONLY|O_CREAT|O_TRUNC <unfinished ...>',
        '102 openat(AT_FDCWD</w>, "y", O_RDONLY <unfinished ...>',
        "101 <... openat resumed>) = 3</tmp/split-write.json>",
        "102 <... openat resumed>) = 3</tmp/split-read.json>",
        '100 openat(AT_FDCWD</O_WRONLY>, "O_CREAT", O_RDONLY) = 4</O_WRONLY/O_CREAT>',
        '100 openat2(AT_FDCWD</w>, "z", {flags=O_RDWR|O_CLOEXEC, resolve=0}, 24) = 5</w/z>',
        '100 creat("c", 0644) = 6</w/c>',
        EXIT0,
      ]),
    ).toEqual({
      kind: "traced",
      files: ["/O_WRONLY/O_CREAT", "/tmp/split-read.json", "/tmp/split-write.json", "/w/c", "/w/z"],
      written: ["/tmp/split-write.json", "/w/c", "/w/z"],
    });
  });

  // Review (stop 33): the result was taken after the last ") = " of the line, so a file named
  // `a) = -1 ENOENT (x` that was opened read as a failed open and was left out of the trace.
  it("reads the result from the line's end, whatever the paths in it say", () => {
    expect(
      traced([
        ROOT,
        '100 openat(AT_FDCWD</w>, "a) = -1 ENOENT (x", O_RDONLY) = 3</w/a) = -1 ENOENT (x>',
        '100 openat(AT_FDCWD</w>, "b> <unfinished ...>", O_RDONLY) = 3</w/b\\76 \\74unfinished ...\\76>',
        '100 openat(AT_FDCWD</w>, "c) = ?", O_RDONLY) = 3</w/c) = ?>',
        EXIT0,
      ]),
    ).toEqual({
      kind: "traced",
      files: ["/w/a) = -1 ENOENT (x", "/w/b> <unfinished ...>", "/w/c) = ?"],
      written: [],
    });
  });

  it("skips calls killed before they returned or left mid-way, and processes replaced by an execve", () => {
    expect(
      traced([
        ROOT,
        "101 <... openat resumed> <unfinished ...>) = ?",
        '102 openat(AT_FDCWD</w>, ""..., O_RDONLY) = ? <unavailable>',
        "103 +++ superseded by execve in pid 101 +++",
        // Stop 34 (under load): a background child killed as the run's PID namespace ended.
        '104 openat(AT_FDCWD</w>, "/dev/null", O_RDONLY <detached ...>',
        "105 <... openat resumed> <detached ...>",
        EXIT0,
      ]),
    ).toEqual({ kind: "traced", files: [], written: [] });
  });

  // Review (stop 33): a run that reached strace's pipe wrote "999 execve(" without a newline, and
  // the open line strace wrote next read as an execve, skipped.
  it("is broken on an open glued onto another call's start", () => {
    expect(
      traced([ROOT, '999 execve(100 openat(AT_FDCWD</w>, "t", O_RDONLY) = 5</w/test/t.js>', EXIT0]),
    ).toMatchObject({ kind: "broken", reason: expect.stringContaining("result devflow cannot read") });
  });

  it("takes namespace and mount calls as devflow's before the hand-over and as the run's after it", () => {
    const lines = [
      ROOT,
      "100 unshare(CLONE_NEWNS) = 0",
      '100 mount(""..., ""..., NULL, MS_BIND, NULL) = 0',
      '100 execve("/usr/bin/setpriv", [...], 0x1 /* 3 vars */) = 0',
      '100 execve("/bin/sh", [...], 0x1 /* 3 vars */) = 0',
    ];
    expect(parseOpenTrace(`${[...lines, EXIT0].join("\n")}\n`, 0, "/usr/bin/setpriv").kind).toBe("traced");
    for (const late of [
      "101 unshare(CLONE_NEWUSER|CLONE_NEWNS) = 0",
      "101 clone(child_stack=NULL, flags=CLONE_NEWUSER|SIGCHLD <unfinished ...>",
      "101 clone3({flags=CLONE_NEWNS, exit_signal=SIGCHLD}, 88) = 102",
      '101 mount(""..., ""..., NULL, MS_BIND, NULL) = 0',
    ])
      expect(parseOpenTrace(`${[...lines, late, EXIT0].join("\n")}\n`, 0, "/usr/bin/setpriv")).toMatchObject({
        kind: "broken",
        reason: expect.stringContaining("may not make namespaces or mounts"),
      });
    // A refused try changes nothing; without a hand-over every such call is the run's.
    expect(
      parseOpenTrace(
        `${[...lines, "101 unshare(CLONE_NEWUSER) = -1 EPERM (Operation not permitted)", EXIT0].join("\n")}\n`,
        0,
        "/usr/bin/setpriv",
      ).kind,
    ).toBe("traced");
    expect(parseOpenTrace(`${[...lines, EXIT0].join("\n")}\n`, 0).kind).toBe("broken");
  });

  it("reads strace's escapes in a path, `<` and `>` among them", () => {
    expect(unescapeStrace("/w/we\\74ir\\76d\\\\x\\n.txt")).toBe("/w/we<ir>d\\x\n.txt");
    expect(unescapeStrace("/w/caf\\xc3\\xa9")).toBe("/w/café");
    expect(unescapeStrace("/w/bad\\x4")).toBeNull();
  });

  it.each([
    ["a line the run could have written", [ROOT, "hello from a test", EXIT0], /is not strace's/],
    [
      "a line that is not a traced call",
      [ROOT, '100 read(3, ""..., 10) = 10', EXIT0],
      /is not a traced call/,
    ],
    [
      "an open without its file's path",
      [ROOT, '100 openat(AT_FDCWD, ""..., O_RDONLY) = 3', EXIT0],
      /without its file's path/,
    ],
    [
      "a first line that is not the run's execve",
      ['100 openat(AT_FDCWD</w>, ""..., O_RDONLY) = 3</w/a>', EXIT0],
      /first execve/,
    ],
    [
      "no exit line for the run",
      [ROOT, '100 openat(AT_FDCWD</w>, ""..., O_RDONLY) = 3</w/a>'],
      /no exit line/,
    ],
    ["only another process's exit line", [ROOT, "101 +++ exited with 0 +++"], /no exit line/],
  ])("is broken on %s", (_name, lines, reason) => {
    const result = traced(lines);
    expect(result.kind).toBe("broken");
    expect(result.kind === "broken" && result.reason).toMatch(reason);
  });

  // Stop 34: the trace is read as it arrives (openTraceReader). Chunks end anywhere: inside a line,
  // inside a multi-byte character of a path, right after a newline. Every cut must read as the
  // whole text does, a glued line included.
  it("reads a trace cut into chunks anywhere as it reads the whole text", () => {
    const lines = [
      ROOT,
      '100 openat(AT_FDCWD</w>, ""..., O_RDONLY) = 3</w/test/café ☃.json>',
      '101 openat(AT_FDCWD</w>, ""..., O_RDONLY <unfinished ...>',
      "101 <... openat resumed>) = 4</w/test/cases/b.json>",
      '100 openat(AT_FDCWD</w>, ""..., O_RDONLY) = -1 ENOENT (No such file or directory)',
      EXIT0,
    ];
    const bytes = Buffer.from(`${lines.join("\n")}\n`, "utf8");
    const glued = Buffer.from(
      `${[ROOT, '999 execve(100 openat(AT_FDCWD</w>, "t", O_RDONLY) = 5</w/t.js>', EXIT0].join("\n")}\n`,
    );
    for (const text of [bytes, glued]) {
      const whole = parseOpenTrace(text.toString("utf8"), 0);
      for (let size = 1; size <= text.length; size += 7) {
        const reader = openTraceReader(undefined, Number.POSITIVE_INFINITY);
        for (let at = 0; at < text.length; at += size) reader.push(text.subarray(at, at + size));
        expect(reader.end(0), `chunks of ${size}`).toEqual(whole);
      }
    }
    expect(parseOpenTrace(bytes.toString("utf8"), 0)).toMatchObject({ kind: "traced" });
  });

  // ADR 0076 part 2 (stop 40): a file asks for a module only when it was opened before it.
  it("keeps the order in which each path was first opened, across processes as strace wrote them", () => {
    const trace = parseOpenTrace(
      `${[
        ROOT,
        '100 openat(AT_FDCWD</w>, ""..., O_RDONLY) = 3</w/z-first.py>',
        '101 openat(AT_FDCWD</w>, ""..., O_RDONLY <unfinished ...>',
        '100 openat(AT_FDCWD</w>, ""..., O_RDONLY) = 4</w/a-second.py>',
        "101 <... openat resumed>) = 3</w/m-third.py>",
        '100 openat(AT_FDCWD</w>, ""..., O_RDONLY) = 5</w/z-first.py>',
        EXIT0,
      ].join("\n")}\n`,
      0,
    );
    expect(trace).toMatchObject({
      files: ["/w/a-second.py", "/w/m-third.py", "/w/z-first.py"],
      firstOpened: ["/w/z-first.py", "/w/a-second.py", "/w/m-third.py"],
    });
  });

  it("keeps each path once, so its cap counts distinct paths and the line being read, not lines", () => {
    const open = '100 openat(AT_FDCWD</w>, ""..., O_RDONLY) = 3</w/the-same-file>';
    const reader = openTraceReader(undefined, 1024);
    reader.push(Buffer.from(`${ROOT}\n`));
    for (let i = 0; i < 10_000; i++) reader.push(Buffer.from(`${open}\n`));
    reader.push(Buffer.from(`${EXIT0}\n`));
    expect(reader.end(0)).toEqual({
      kind: "traced",
      files: ["/w/the-same-file"],
      written: [],
      firstOpened: ["/w/the-same-file"],
    });
    const endless = openTraceReader(undefined, 1024);
    endless.push(Buffer.from(`${ROOT}\n100 openat(`));
    for (let i = 0; i < 100; i++) endless.push(Buffer.from("x".repeat(100)));
    expect(endless.end(0)).toMatchObject({
      kind: "broken",
      reason: expect.stringContaining(OPEN_TRACE_CAP_ENV),
    });
  });

  it("is broken when the run's exit in the trace is not the exit devflow saw", () => {
    expect(traced([ROOT, EXIT0], 1)).toMatchObject({
      kind: "broken",
      reason: expect.stringMatching(/ended with 0, devflow saw exit 1/),
    });
    expect(parseOpenTrace("", 0)).toMatchObject({ kind: "broken", reason: expect.stringMatching(/empty/) });
  });
});

describe("a traced run (real strace)", () => {
  // A verification run's layout (ADR 0031): the user's repo read-only, devflow's home hidden, the
  // run's checkout (`dir`) bound back with an overlay on it.
  let root: string;
  let dir: string;
  let mounts: MountPlan;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "devflow-open-trace-"));
    const home = join(root, "repo", ".devflow");
    dir = join(home, "co");
    mkdirSync(dir, { recursive: true });
    mkdirSync(join(home, "up"));
    mounts = { readOnly: join(root, "repo"), hide: home, expose: dir, overlayUpper: join(home, "up") };
    resetOpenTracer();
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    delete process.env[NO_OPEN_TRACE_ENV];
    resetOpenTracer();
  });

  /** A confined, traced run of a shell command in `dir`. */
  const tracedRun = (command: string, args: string[] = []) =>
    runProcess({
      command,
      args,
      shell: true,
      cwd: dir,
      env: baseEnv(),
      timeoutMs: 20_000,
      confine: true,
      mounts,
      traceOpens: true,
    });

  // CI installs strace (.ci/run): a machine without it fails here rather than skipping.
  it("has a tracer on this machine", () => {
    expect(openTracer()).toHaveProperty("strace");
  });

  it("records files read by grandchildren and by a path built at run time, in its own PID namespace", async () => {
    mkdirSync(join(dir, "test", "cases"), { recursive: true });
    writeFileSync(join(dir, "test", "cases", "one.json"), "{}");
    writeFileSync(join(dir, "test", "helper.js"), "module.exports = 1;");
    const result = await tracedRun(
      `node -e 'require("node:child_process").execFileSync("node", ["-e", "require(require(\\"path\\").join(process.cwd(), [\\"te\\",\\"st\\"].join(\\"\\"), \\"helper.js\\"))"]); require("fs").readdirSync("test/cases").forEach((f) => require("fs").readFileSync("test/cases/" + f))'; exit 4`,
    );
    expect(result.exitCode).toBe(4);
    expect(result.openTrace?.kind).toBe("traced");
    const files = result.openTrace?.kind === "traced" ? result.openTrace.files : [];
    expect(files).toEqual(
      expect.arrayContaining([join(dir, "test/helper.js"), join(dir, "test/cases/one.json")]),
    );
  });

  it("records files whose names look like strace's own words", async () => {
    const names = ["a) = -1 ENOENT (x", "b> <unfinished ...>", "c\nd"];
    for (const name of names) writeFileSync(join(dir, name), "x");
    const result = await tracedRun('cat "$@" > /dev/null', names);
    expect(result.openTrace?.kind).toBe("traced");
    const files = result.openTrace?.kind === "traced" ? result.openTrace.files : [];
    expect(files).toEqual(expect.arrayContaining(names.map((n) => join(dir, n))));
  });

  it("gives the path the kernel resolved, not the link the run named", async () => {
    writeFileSync(join(dir, "real.txt"), "x");
    symlinkSync("real.txt", join(dir, "link.txt"));
    const result = await tracedRun("cat link.txt");
    const files = result.openTrace?.kind === "traced" ? result.openTrace.files : [];
    expect(files).toContain(join(dir, "real.txt"));
  });

  it("never hands the trace's descriptor to the run", async () => {
    const result = await tracedRun(
      'if [ -e "/proc/$$/fd/3" ]; then echo "has fd 3"; else echo "no fd 3"; fi',
    );
    expect(result.openTrace?.kind).toBe("traced");
    expect(result.output.trim()).toBe("no fd 3");
  });

  // strace waits for every process it traces: where no PID namespace ends a run's leftovers with
  // it, a background process kept the run alive until its timeout (and could kill strace).
  it("is unavailable, and does not wait for leftovers, where the run has no PID namespace", async () => {
    process.env.DEVFLOW_NO_PID_NAMESPACE = "1";
    resetContainmentProbe();
    resetMountProbe();
    try {
      const result = await tracedRun("sleep 30 & echo started");
      expect(result.timedOut).toBe(false);
      expect(result.durationMs).toBeLessThan(15_000);
      expect(result.openTrace).toMatchObject({
        kind: "unavailable",
        reason: expect.stringContaining("PID namespace"),
      });
    } finally {
      delete process.env.DEVFLOW_NO_PID_NAMESPACE;
      resetContainmentProbe();
      resetMountProbe();
    }
  });

  // Review (stop 33): without a mount namespace the run sees the host's /proc, and through
  // /proc/<cat>/fd/0 strace's pipe, to read lines away or glue text onto them.
  it("is unavailable for a run without a mount namespace of its own", async () => {
    const result = await runProcess({
      command: "true",
      shell: true,
      cwd: dir,
      env: baseEnv(),
      timeoutMs: 20_000,
      confine: true,
      traceOpens: true,
    });
    expect(result.openTrace).toMatchObject({ kind: "unavailable", reason: expect.stringContaining("mount") });
  });

  // Review (stop 33): a run made a user and mount namespace of its own (no capability needed) and
  // bind-mounted a program file over an unchanged test data file: the seam read other content
  // while the trace named only the unchanged file.
  it("is broken when the run makes a namespace of its own, and not for devflow's own setup", async () => {
    const result = await tracedRun("unshare --user true; echo done");
    expect(result.output).toContain("done");
    expect(result.openTrace).toMatchObject({
      kind: "broken",
      reason: expect.stringContaining("may not make namespaces or mounts"),
    });
    expect((await tracedRun("true")).openTrace?.kind).toBe("traced");
  });

  it("ends with the run when the run leaves a background process in its PID namespace", async () => {
    const result = await tracedRun("sleep 30 & echo started");
    expect(result.timedOut).toBe(false);
    expect(result.openTrace).toMatchObject({ kind: "traced" });
  });

  it("is broken, saying how to raise the cap, when the trace is over it", async () => {
    process.env[OPEN_TRACE_CAP_ENV] = "0.001";
    try {
      // The reader keeps distinct paths: /etc's ~100 names are over 1 KiB of them.
      const result = await tracedRun("cat /etc/* > /dev/null 2>&1; true");
      expect(result.openTrace).toMatchObject({
        kind: "broken",
        reason: expect.stringContaining(`raise it with ${OPEN_TRACE_CAP_ENV}`),
      });
    } finally {
      delete process.env[OPEN_TRACE_CAP_ENV];
    }
  });

  it("is unavailable, not traced, when turned off", async () => {
    process.env[NO_OPEN_TRACE_ENV] = "1";
    const result = await tracedRun("true");
    expect(result.openTrace).toMatchObject({
      kind: "unavailable",
      reason: expect.stringContaining(NO_OPEN_TRACE_ENV),
    });
  });
});
