import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CoderRunRequest, CoderRunResult } from "../../../src/coders/contract.js";
import { type CoderWorld, createCoderWorld } from "../harness.js";
import {
  abortOnceStarted,
  CONFORMANCE_PROMPT,
  expectGrandchildGoneByCommandLine,
  expectOneCommitChanging,
  hangingGrandchild,
} from "./shared.js";
import type {
  InProcessCoderInitializer,
  InProcessOptions,
  ScriptedAnswer,
  ScriptedTurn,
  StartedInProcess,
} from "./types.js";

/** A literal secret no key pattern matches: only the run's own secret list can redact it. */
const IN_PROCESS_SECRET = "conformance-literal-secret-4f9a1c77";
const IN_PROCESS_TRANSCRIPT_CAP = 24 * 1024;

/** A command that leaves a grandchild running (its command line names the world's pid file) and waits on it. */
const hangCommand = hangingGrandchild;

const tool = (name: string, args: Record<string, unknown>, usage?: ScriptedTurn["usage"]): ScriptedTurn => ({
  toolCalls: [{ name, args }],
  ...(usage === undefined ? {} : { usage }),
});

/**
 * The conformance cases that apply to an in-process backend, after the CLI spec (cli-backend-spec.ts): success,
 * structured failure, auth and rate limit (HTTP drivers), a hang past the timeout and an abort
 * (the command the agent started is killed with its group), huge output (capped, still recorded),
 * a secret (redacted), and changes read from git although the agent committed. Stdin, flags and
 * a missing binary have no in-process meaning.
 */
export function inProcessCoderSpec(driver: InProcessCoderInitializer): void {
  describe(`${driver.name} coder conformance`, () => {
    let world: CoderWorld;
    let started: StartedInProcess | null = null;
    beforeEach(() => {
      world = createCoderWorld("in-process");
    });
    afterEach(async () => {
      await started?.close();
      started = null;
      world.cleanup();
    });

    const run = async (
      script: ScriptedAnswer[],
      overrides: Partial<CoderRunRequest> = {},
      options: InProcessOptions = {},
    ): Promise<CoderRunResult> => {
      started = await driver.start(script, world, options);
      return started.backend.run({
        prompt: CONFORMANCE_PROMPT,
        worktree: world.worktree,
        attemptDir: world.attemptDir,
        scratchDir: world.scratchDir,
        env: {},
        timeoutMs: 60_000,
        ...overrides,
      });
    };
    const transcript = (result: CoderRunResult): string => readFileSync(result.transcriptPath, "utf8");

    it("probe reports the backend ready when its model is configured", async () => {
      started = await driver.start([], world, {});
      expect(await started.backend.probe()).toMatchObject({ installed: true, hint: null });
    });

    it("success: ok from the model's final answer, its edit is in the worktree, usage is counted", async () => {
      const result = await run([
        tool(
          "write_file",
          { path: "stub-edit.txt", content: "hi\n" },
          { input_tokens: 100, output_tokens: 20 },
        ),
        { content: "Created stub-edit.txt.", usage: { input_tokens: 130, output_tokens: 10 } },
      ]);
      expect(result.error).toBeNull();
      expect(result.status).toBe("ok");
      expect(result.exitCode).toBeNull();
      expect(result.finalMessage).toBe("Created stub-edit.txt.");
      expect(result.usage).toMatchObject({ input_tokens: 230, output_tokens: 30 });
      expect(readFileSync(join(world.worktree, "stub-edit.txt"), "utf8")).toBe("hi\n");
      expect(world.git(["status", "--porcelain"])).toContain("stub-edit.txt");
      expect(result.transcriptPath).toBe(join(world.attemptDir, "coder_transcript.log"));
      expect(transcript(result)).toContain('"write_file"');
    });

    it("a model that ends without a final message is not reported as success", async () => {
      const result = await run([{ content: "" }]);
      expect(result.status).toBe("error");
      expect(result.error).toMatch(/\S/);
    });

    it.skipIf(!driver.httpErrors)("an authentication failure is reported as auth", async () => {
      const result = await run([{ httpStatus: 401, message: "Incorrect API key provided" }]);
      expect(result.status).toBe("auth");
      expect(result.error).toContain("Incorrect API key provided");
    });

    it.skipIf(!driver.httpErrors)(
      "a rate limit that outlasts the retries is reported as rate_limit",
      async () => {
        const limited = { httpStatus: 429, message: "Rate limit reached for requests" };
        const result = await run([limited, limited, limited, limited, limited]);
        expect(result.status).toBe("rate_limit");
      },
    );

    it("a hang past the timeout stops the run and kills the command's whole process group", async () => {
      const result = await run([tool("run_command", { command: hangCommand(world) })], { timeoutMs: 4000 });
      expect(result.status).toBe("timeout");
      await expectGrandchildGoneByCommandLine(world);
    });

    it("an abort mid-run stops the run, kills the running command's group and reports aborted", async () => {
      const script = [tool("run_command", { command: hangCommand(world) })];
      const result = await abortOnceStarted(world, (signal) => run(script, { signal }));
      expect(result.status).toBe("aborted");
      await expectGrandchildGoneByCommandLine(world);
    });

    it("huge tool output is capped for the model and in the transcript, and the run is still recorded", async () => {
      const huge = (bytes: number) =>
        tool("run_command", { command: `head -c ${bytes} /dev/zero | tr '\\0' x` });
      const result = await run(
        [huge(3_000_000), huge(3_000_001), huge(3_000_002), { content: "Done; that was a lot of output." }],
        {},
        { transcriptCapBytes: IN_PROCESS_TRANSCRIPT_CAP },
      );
      expect(result.status).toBe("ok");
      expect(result.finalMessage).toContain("a lot of output");
      const text = transcript(result);
      expect(text).toMatch(/bytes omitted/);
      expect(text).toContain("[transcript truncated after");
      expect(statSync(result.transcriptPath).size).toBeLessThanOrEqual(IN_PROCESS_TRANSCRIPT_CAP + 1024);
      expect(started?.sentToModel?.().length ?? 0).toBeLessThan(200_000);
    });

    it("a secret in a file and in the model's answer is redacted from the transcript, the result and the model's input", async () => {
      writeFileSync(join(world.worktree, "service.conf"), `endpoint = local\nkey ${IN_PROCESS_SECRET}\n`);
      const result = await run(
        [tool("read_file", { path: "service.conf" }), { content: `The key is ${IN_PROCESS_SECRET}.` }],
        { env: { CONFORMANCE_SERVICE_API_KEY: IN_PROCESS_SECRET } },
      );
      expect(result.status).toBe("ok");
      expect(transcript(result)).toContain("[REDACTED]");
      expect(transcript(result)).not.toContain(IN_PROCESS_SECRET);
      expect(result.finalMessage).toBe("The key is [REDACTED].");
      if (started?.sentToModel) expect(started.sentToModel()).not.toContain(IN_PROCESS_SECRET);
    });

    it("changed files come from git, also when the agent commits by itself", async () => {
      const result = await run([
        tool("write_file", { path: "stub-edit.txt", content: "hi\n" }),
        tool("run_command", {
          command:
            "git add stub-edit.txt && git -c user.name=agent -c user.email=agent@example.invalid commit -q -m 'agent commit'",
        }),
        { content: "Created and committed stub-edit.txt." },
      ]);
      expect(result.status).toBe("ok");
      expectOneCommitChanging(world, "stub-edit.txt");
    });
  });
}
