#!/usr/bin/env python3
"""Drives a command through a pseudo-terminal for the chat tests.

Usage: pty-drive.py '<json spec>'
spec: { "argv": [...], "cwd": str, "env": {...}, "steps": [step, ...], "timeout": seconds }
step: { "expect": "<python regex>" } waits until the output (ANSI codes stripped) after the
      previous match matches; { "send": "<text>" } writes to the terminal ("\\u0003" is Ctrl-C);
      { "wait_file": "<path>" } waits until the file exists and is not empty.
Prints one JSON object: { "output", "exit_code", "failed_step" } (failed_step null when all ran).
Every wait is bounded by the spec's timeout so a broken chat fails the test instead of hanging it.
"""
import json, os, pty, re, select, signal, sys, time

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")


def main() -> None:
    spec = json.loads(sys.argv[1])
    timeout = float(spec.get("timeout", 60))
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(spec["cwd"])
        os.execvpe(spec["argv"][0], spec["argv"], {**os.environ, **spec.get("env", {})})
    raw = b""
    cursor = 0
    exited = None

    def pump(wait: float) -> None:
        nonlocal raw, exited
        ready, _, _ = select.select([fd], [], [], wait)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            raw += chunk
        if exited is None:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                exited = os.waitstatus_to_exitcode(status)

    def text() -> str:
        return ANSI.sub("", raw.decode("utf8", "replace"))

    failed = None
    for index, step in enumerate(spec["steps"]):
        deadline = time.monotonic() + timeout
        if "send" in step:
            os.write(fd, step["send"].encode())
            continue
        while time.monotonic() < deadline:
            if "expect" in step:
                match = re.compile(step["expect"]).search(text(), cursor)
                if match:
                    cursor = match.end()
                    break
            elif os.path.exists(step["wait_file"]) and os.path.getsize(step["wait_file"]) > 0:
                break
            if exited is not None and "expect" in step:
                pump(0)
                if not re.compile(step["expect"]).search(text(), cursor):
                    deadline = 0
                    break
            pump(0.05)
        else:
            failed = index
            break
        if deadline == 0:
            failed = index
            break

    deadline = time.monotonic() + timeout
    while exited is None and time.monotonic() < deadline:
        pump(0.05)
    if exited is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        failed = failed if failed is not None else "exit"
    # Drain what is left of the output.
    while True:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        raw += chunk
    print(json.dumps({"output": text(), "exit_code": exited, "failed_step": failed}))


main()
