import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CoderStatus } from "../../src/artifacts/schemas/index.js";
import { CONFIG_HOME_DIR } from "../../src/coders/cli/cli-backend.js";
import type { CliCoderBackend, CliRuntimeOptions } from "../../src/coders/cli/types.js";
import type { CoderBackend, CoderRunRequest, CoderRunResult, CoderUsage } from "../../src/coders/contract.js";
import { isDevflowError } from "../../src/errors/index.js";
import {
  type CoderWorld,
  createCoderWorld,
  createStubWorld,
  processGone,
  type StubCall,
  type StubWorld,
  waitFor,
} from "./harness.js";

/** Builds the backend under test; the suite injects PATH/credentials (sourceEnv) and small limits. */
export type ConformanceFactory = (options: CliRuntimeOptions) => CliCoderBackend;

/** What the suite needs to know about one CLI and its stub (test/stubs/<cli>.mjs). */
export interface StubControls {
  /** Command name and stub file name. */
  cli: string;
  /** Credentials that make the backend consider itself configured. */
  authEnv: Record<string, string>;
  /** Which of `authEnv` the stub prints in the "secret" scenario. */
  secretEnv: string;
  /** How the prompt reaches the CLI: stdin closed, the prompt on stdin, or Junie's task JSON on stdin. */
  stdin: "closed" | "prompt" | "task-json";
  /** Backend-specific assertions on the documented flags and variables the stub received. */
  expectInvocation(call: StubCall, world: StubWorld, prompt: string): void;
  /** Usage the stub's success output implies, as the backend must report it. */
  expectedUsage: CoderUsage;
  /** Status of the stub's exit-0 structured failure (default "error"). */
  structuredFailureStatus?: CoderStatus;
  /** The install step the missing-binary error must name (a distinctive fragment). */
  installStep: string;
}

/** Quotes, a `$VAR`, a newline and non-ASCII: any shell or re-quoting on the way would alter it. */
export const CONFORMANCE_PROMPT =
  "Create stub-edit.txt — say \"hi\" and 'bye'; leave $HOME alone.\nSecond line: ünïcode.";

const STRIPPED_VARIABLES = {
  EJ_RUNNER_PWD: "/somewhere/else",
  CLAUDECODE: "1",
  CLAUDE_CODE_ENTRYPOINT: "cli",
};
const HUGE_CAP_BYTES = 256 * 1024;
const KILL_GRACE_MS = 300;

/** The hang scenarios' grandchild (its pid in world.pidFile) no longer runs: the whole group was killed. */
async function expectGrandchildGone(world: CoderWorld): Promise<void> {
  expect(existsSync(world.pidFile)).toBe(true);
  const grandchild = Number(readFileSync(world.pidFile, "utf8"));
  await waitFor(() => processGone(grandchild), `grandchild ${grandchild} to be gone`);
  expect(processGone(grandchild)).toBe(true);
}

/** The worktree holds exactly one commit over the base, and the change against the base is `file`. */
function expectOneCommitChanging(world: CoderWorld, file: string): void {
  const commits = world
    .git(["rev-list", `${world.baseSha}..HEAD`])
    .split("\n")
    .filter(Boolean);
  expect(commits).toHaveLength(1);
  expect(world.git(["diff", "--name-only", world.baseSha])).toBe(file);
}

/** Starts a run, aborts it once its hanging command has started, and returns its result. */
async function abortOnceStarted(
  world: CoderWorld,
  start: (signal: AbortSignal) => Promise<CoderRunResult>,
): Promise<CoderRunResult> {
  const controller = new AbortController();
  const running = start(controller.signal);
  await waitFor(() => existsSync(world.startedFile), "the hanging command to start");
  controller.abort();
  return running;
}

/**
 * The behavioural contract every CLI coder backend must meet, after LangGraph's checkpoint-validation
 * suite: one spec, run by each backend's test file against a stub of that CLI.
 */
export function runCoderConformance(factory: ConformanceFactory, controls: StubControls): void {
  describe(`${controls.cli} coder conformance`, () => {
    let world: StubWorld;
    beforeEach(() => {
      world = createStubWorld(controls.cli);
    });
    afterEach(() => {
      world.cleanup();
    });

    const backend = (
      options: CliRuntimeOptions = {},
      sourceExtra: Record<string, string> = {},
    ): CliCoderBackend =>
      factory({
        sourceEnv: world.sourceEnv({ ...controls.authEnv, ...sourceExtra }),
        killGraceMs: KILL_GRACE_MS,
        ...options,
      });

    const request = (scenario: string, overrides: Partial<CoderRunRequest> = {}): CoderRunRequest => ({
      prompt: CONFORMANCE_PROMPT,
      worktree: world.worktree,
      attemptDir: world.attemptDir,
      env: world.stubEnv(scenario, { STUB_SECRET_ENV: controls.secretEnv }),
      timeoutMs: 60_000,
      ...overrides,
    });

    const run = (
      scenario: string,
      overrides: Partial<CoderRunRequest> = {},
      options: CliRuntimeOptions = {},
    ) => backend(options).run(request(scenario, overrides));

    const transcript = (result: CoderRunResult): string => readFileSync(result.transcriptPath, "utf8");

    it("probe reports the CLI installed, its version, and configured credentials", async () => {
      const probe = await backend().probe();
      expect(probe).toMatchObject({
        name: controls.cli,
        installed: true,
        version: "9.9.9-stub",
        authConfigured: true,
        hint: null,
      });
      expect(probe.binaryPath).toBe(join(world.binDir, controls.cli));
    });

    it("success: ok from the structured output, the stub's edit is in the worktree, the config home is gone", async () => {
      const result = await run("success");
      expect(result.error).toBeNull();
      expect(result.status).toBe("ok");
      expect(result.exitCode).toBe(0);
      expect(result.finalMessage).not.toBe("");
      expect(result.usage).toEqual(controls.expectedUsage);
      expect(world.git(["status", "--porcelain"])).toContain("stub-edit.txt");
      expect(result.transcriptPath).toBe(join(world.attemptDir, "coder_transcript.log"));
      expect(existsSync(result.transcriptPath)).toBe(true);
      expect(existsSync(join(world.attemptDir, CONFIG_HOME_DIR))).toBe(false);
    });

    it("passes the documented flags, closes or fully writes stdin, and hands over only allowed variables", async () => {
      const result = await backend({}, { GITHUB_TOKEN: "ghp_unrelatedtoken1234567890abcdef" }).run(
        request("success", { env: { ...world.stubEnv("success"), ...STRIPPED_VARIABLES } }),
      );
      expect(result.status).toBe("ok");
      const call = world.readCall();
      controls.expectInvocation(call, world, CONFORMANCE_PROMPT);
      const expectedStdin =
        controls.stdin === "closed"
          ? ""
          : controls.stdin === "prompt"
            ? CONFORMANCE_PROMPT
            : `${JSON.stringify({ task: CONFORMANCE_PROMPT })}\n`;
      expect(call.stdin).toBe(expectedStdin);
      expect(call.cwd).toBe(world.worktree);
      for (const name of Object.keys(STRIPPED_VARIABLES)) expect(call.env[name]).toBeUndefined();
      expect(call.env.GITHUB_TOKEN).toBeUndefined();
      expect(call.env.CI).toBe("1");
      expect(call.env[controls.secretEnv]).toBe(controls.authEnv[controls.secretEnv]);
    });

    it("a structured failure with exit code 0 is not reported as success", async () => {
      const result = await run("structured_failure");
      expect(result.exitCode).toBe(0);
      expect(result.status).toBe(controls.structuredFailureStatus ?? "error");
      expect(result.error).toMatch(/\S/);
    });

    it("a non-zero exit is an error, with the CLI's own words in the reason", async () => {
      const result = await run("nonzero_exit");
      expect(result.status).toBe("error");
      expect(result.exitCode).not.toBe(0);
      expect(result.exitCode).not.toBeNull();
      expect(result.error).toMatch(/\S/);
    });

    it("an authentication failure is reported as auth", async () => {
      const result = await run("auth");
      expect(result.status).toBe("auth");
    });

    it("a rate or usage limit is reported as rate_limit", async () => {
      const result = await run("rate_limit");
      expect(result.status).toBe("rate_limit");
    });

    it("a hang past the timeout kills the whole process group and leaves no orphan", async () => {
      const result = await run("hang", { timeoutMs: 4000 });
      expect(result.status).toBe("timeout");
      await expectGrandchildGone(world);
    });

    it("an abort mid-run kills the whole process group and reports aborted", async () => {
      const result = await abortOnceStarted(world, (signal) => run("hang", { signal }));
      expect(result.status).toBe("aborted");
      await expectGrandchildGone(world);
    });

    it("huge output is capped in the transcript and the run is still recorded", async () => {
      const result = await run("huge_output", {}, { maxOutputBytes: HUGE_CAP_BYTES });
      expect(result.status).toBe("ok");
      expect(result.finalMessage).toContain("a lot of output");
      // The cap plus devflow's one-line truncation notice.
      expect(statSync(result.transcriptPath).size).toBeLessThanOrEqual(HUGE_CAP_BYTES + 1024);
      expect(statSync(result.transcriptPath).size).toBeGreaterThan(HUGE_CAP_BYTES / 2);
    });

    it("a secret printed by the CLI is redacted from the transcript and the result", async () => {
      const secret = controls.authEnv[controls.secretEnv] ?? "";
      expect(secret.length).toBeGreaterThan(8);
      const result = await run("secret");
      expect(result.status).toBe("ok");
      expect(transcript(result)).toContain("[REDACTED]");
      expect(transcript(result)).not.toContain(secret);
      expect(result.finalMessage).not.toContain(secret);
    });

    it("a missing binary is a CODER_NOT_INSTALLED error naming the install step", async () => {
      const emptyPath = world.sourceEnv({ ...controls.authEnv, PATH: join(world.root, "no-such-bin") });
      const missing = factory({ sourceEnv: emptyPath });
      const error = await missing.run(request("success")).catch((caught: unknown) => caught);
      if (!isDevflowError(error, "CODER_NOT_INSTALLED"))
        throw new Error(`expected a CODER_NOT_INSTALLED error, got ${String(error)}`);
      expect(error.message).toContain(controls.installStep);
      expect(error.hint).toContain(controls.installStep);
      const probe = await missing.probe();
      expect(probe.installed).toBe(false);
      expect(probe.hint).toContain(controls.installStep);
    });

    it("missing credentials stop the run before spawning, with the configure step", async () => {
      const unconfigured = factory({ sourceEnv: world.sourceEnv() });
      expect((await unconfigured.probe()).authConfigured).toBe(false);
      const error = await unconfigured.run(request("success")).catch((caught: unknown) => caught);
      if (!isDevflowError(error, "CODER_MISCONFIGURED"))
        throw new Error(`expected a CODER_MISCONFIGURED error, got ${String(error)}`);
      expect(error.hint).not.toBeNull();
      expect(existsSync(world.recordFile)).toBe(false);
    });

    it("changed files come from git, also when the CLI commits by itself", async () => {
      const result = await run("commit");
      expect(result.status).toBe("ok");
      expectOneCommitChanging(world, "stub-edit.txt");
    });
  });
}

/** One model turn of an in-process conformance script: what the backend's model answers. */
export interface ScriptedTurn {
  content?: string;
  toolCalls?: { name: string; args: Record<string, unknown> }[];
  usage?: { input_tokens: number; output_tokens: number };
}

/** An HTTP error in place of an answer (only for drivers that talk HTTP). */
export interface ScriptedHttpError {
  httpStatus: number;
  message: string;
}

export type ScriptedAnswer = ScriptedTurn | ScriptedHttpError;

export interface InProcessOptions {
  /** Cap of coder_transcript.log (the huge-output case sets a small one). */
  transcriptCapBytes?: number;
}

/** A backend under test, built over a model that plays the script, and how to tear it down. */
export interface StartedInProcess {
  backend: CoderBackend;
  /** Everything the model was sent so far, when the driver can see it (an HTTP server can). */
  sentToModel?: () => string;
  close(): Promise<void>;
}

/** How the shared suite drives an in-process backend (no executable: the model is scripted instead). */
export interface InProcessDriver {
  /** Names the describe block, e.g. "builtin over a replay cassette". */
  name: string;
  /** Whether `start` can script HTTP errors (auth, rate limit): an HTTP server can, a cassette cannot. */
  httpErrors: boolean;
  start(script: ScriptedAnswer[], world: CoderWorld, options: InProcessOptions): Promise<StartedInProcess>;
}

/** A literal secret no key pattern matches: only the run's own secret list can redact it. */
const IN_PROCESS_SECRET = "conformance-literal-secret-4f9a1c77";
const IN_PROCESS_TRANSCRIPT_CAP = 24 * 1024;

/** A command that leaves a grandchild running, records its pid, and waits on it. */
const hangCommand = (world: CoderWorld): string =>
  `sleep 300 & echo $! > ${JSON.stringify(world.pidFile)}; touch ${JSON.stringify(world.startedFile)}; wait`;

const tool = (name: string, args: Record<string, unknown>, usage?: ScriptedTurn["usage"]): ScriptedTurn => ({
  toolCalls: [{ name, args }],
  ...(usage === undefined ? {} : { usage }),
});

/**
 * The conformance cases that apply to an in-process backend, after the CLI suite above: success,
 * structured failure, auth and rate limit (HTTP drivers), a hang past the timeout and an abort
 * (the command the agent started is killed with its group), huge output (capped, still recorded),
 * a secret (redacted), and changes read from git although the agent committed. Stdin, flags and
 * a missing binary have no in-process meaning.
 */
export function runInProcessCoderConformance(driver: InProcessDriver): void {
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
      await expectGrandchildGone(world);
    });

    it("an abort mid-run stops the run, kills the running command's group and reports aborted", async () => {
      const script = [tool("run_command", { command: hangCommand(world) })];
      const result = await abortOnceStarted(world, (signal) => run(script, { signal }));
      expect(result.status).toBe("aborted");
      await expectGrandchildGone(world);
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
