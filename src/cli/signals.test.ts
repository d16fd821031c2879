import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { isDevflowError } from "../errors/index.js";
import { baseEnv } from "../process/env.js";
import { runProcess } from "../process/run-process.js";
import { StopSignals } from "./signals.js";

function owner(opts: { abortable: boolean; resume?: string }) {
  const source = new EventEmitter();
  const err: string[] = [];
  const exits: number[] = [];
  const stopped: [number, unknown, unknown][] = [];
  const stop = new StopSignals(
    { err: (t) => err.push(t) },
    {
      abortable: opts.abortable,
      resumeCommand: (id) => (opts.resume && id ? `${opts.resume} ${id}` : null),
      exit: (code) => exits.push(code),
      onStopped: (code, error, run) => stopped.push([code, error, run]),
      source: source as unknown as NodeJS.Process,
    },
  );
  return { stop, source, err, exits, stopped };
}

describe("StopSignals: the one owner of SIGINT and SIGTERM during a run", () => {
  it("Ctrl-C aborts the run with the signal as reason; the command answers 130 and the resume line, not the abort's noise", async () => {
    const { stop, source, err } = owner({ abortable: true, resume: "devflow iterate --resume --task-id" });
    stop.noteTask("t1");
    const code = await stop.run(async (signal) => {
      source.emit("SIGINT");
      expect(signal.aborted).toBe(true);
      expect(isDevflowError(signal.reason, "INTERRUPTED") && signal.reason.details.signal).toBe("SIGINT");
      throw new DOMException("This operation was aborted", "AbortError");
    });
    expect(code).toBe(130);
    expect(err.join("")).toContain("→ devflow iterate --resume --task-id t1");
    expect(err.join("")).not.toContain("operation was aborted");
  });

  it("regression: --json printed no result line after a stop; the stopped run is told its code and the INTERRUPTED error once", async () => {
    // Cause: StopSignals.run swallowed what the stopped run threw, so runCli never wrote the error
    // result line. Fix: onStopped hands the code and the INTERRUPTED error to the command.
    const { stop, source, stopped } = owner({ abortable: true });
    const code = await stop.run(async () => {
      source.emit("SIGTERM");
      throw new DOMException("This operation was aborted", "AbortError");
    });
    expect(code).toBe(143);
    expect(stopped).toHaveLength(1);
    expect(stopped[0]?.[0]).toBe(143);
    expect(isDevflowError(stopped[0]?.[1], "INTERRUPTED")).toBe(true);
  });

  it("regression: a stopped --json run's result named no task_id and no resume command; the stopped run is told both", async () => {
    // Cause: onStopped got the code and the error only, so the result line carried the task id
    // inside a sentence and no way to continue. Fix: onStopped also gets { taskId, resumeCommand }
    // (json-output's stoppedResultLine writes them). Mutation: passing { taskId: null, resumeCommand: null } → red.
    const { stop, source, stopped } = owner({
      abortable: true,
      resume: "devflow iterate --resume --task-id",
    });
    stop.noteTask("t3");
    await stop.run(async () => {
      source.emit("SIGINT");
      throw new DOMException("This operation was aborted", "AbortError");
    });
    expect(stopped[0]?.[2]).toEqual({ taskId: "t3", resumeCommand: "devflow iterate --resume --task-id t3" });
  });

  it("SIGTERM answers 143, also when the run still returned its own exit code", async () => {
    const { stop, source } = owner({ abortable: true });
    expect(
      await stop.run(async () => {
        source.emit("SIGTERM");
        return 0;
      }),
    ).toBe(143);
  });

  it("a second Ctrl-C forces the exit at once with 130 after SIGKILLing the groups devflow waits on", async () => {
    const { stop, source, exits, err } = owner({ abortable: true, resume: "resume" });
    stop.noteTask("t2");
    // A child that ignores SIGTERM: the first stop would wait out its grace period.
    const child = runProcess({
      command: "sh",
      args: ["-c", "trap '' TERM; echo started; sleep 30"],
      cwd: process.cwd(),
      env: baseEnv(),
      timeoutMs: 60_000,
      killGraceMs: 30_000,
      onStdoutLine: () => {
        source.emit("SIGINT");
        source.emit("SIGINT");
      },
    });
    const running = stop.run(async () => {
      await child;
      return 0;
    });
    const result = await child;
    expect(exits).toEqual([130]);
    expect(result.signal).toBe("SIGKILL");
    expect(err.join("")).toContain("stopped at once by SIGINT");
    expect(err.join("")).toContain("→ resume t2");
    expect(await running).toBe(130);
  });

  it("a command that cannot stop cleanly (route, playground) exits at once on the first signal", async () => {
    const { stop, source, exits } = owner({ abortable: false });
    await stop.run(async (signal) => {
      source.emit("SIGTERM");
      expect(signal.aborted).toBe(false);
      return 0;
    });
    expect(exits).toEqual([143]);
  });

  it("without a signal the body's code and errors pass through, and the handlers are removed", async () => {
    const { stop, source } = owner({ abortable: true });
    expect(source.listenerCount("SIGINT")).toBe(1);
    await expect(
      stop.run(async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(source.listenerCount("SIGINT")).toBe(0);
    expect(source.listenerCount("SIGTERM")).toBe(0);
  });
});
