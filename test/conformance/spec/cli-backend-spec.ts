import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_HOME_DIR } from "../../../src/coders/cli/cli-backend.js";
import type { CliCoderBackend, CliRuntimeOptions } from "../../../src/coders/cli/types.js";
import type { CoderRunRequest, CoderRunResult } from "../../../src/coders/contract.js";
import { isDevflowError } from "../../../src/errors/index.js";
import { createStubWorld, type StubWorld } from "../harness.js";
import {
  abortOnceStarted,
  CONFORMANCE_PROMPT,
  expectGrandchildGone,
  expectOneCommitChanging,
  HUGE_CAP_BYTES,
  KILL_GRACE_MS,
  STRIPPED_VARIABLES,
} from "./shared.js";
import type { CliCoderInitializer } from "./types.js";

/**
 * The behavioural contract every CLI coder backend must meet, after LangGraph's checkpoint-validation
 * suite: one spec, run by each backend's test file against a stub of that CLI.
 */
export function cliCoderSpec(controls: CliCoderInitializer): void {
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
      controls.createBackend({
        sourceEnv: world.sourceEnv({ ...controls.authEnv, ...sourceExtra }),
        killGraceMs: KILL_GRACE_MS,
        ...options,
      });

    const request = (scenario: string, overrides: Partial<CoderRunRequest> = {}): CoderRunRequest => ({
      prompt: CONFORMANCE_PROMPT,
      worktree: world.worktree,
      attemptDir: world.attemptDir,
      scratchDir: world.scratchDir,
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
      expect(existsSync(join(world.scratchDir, CONFIG_HOME_DIR))).toBe(false);
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
      // Named after the variable that held it (ADR 0030), and never redacted twice.
      expect(transcript(result)).toContain(`[redacted:${controls.secretEnv}]`);
      expect(transcript(result)).not.toContain("[redacted:[redacted:");
      expect(transcript(result)).not.toContain(secret);
      expect(result.finalMessage).not.toContain(secret);
    });

    it("a missing binary is a CODER_NOT_INSTALLED error naming the install step", async () => {
      const emptyPath = world.sourceEnv({ ...controls.authEnv, PATH: join(world.root, "no-such-bin") });
      const missing = controls.createBackend({ sourceEnv: emptyPath });
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
      const unconfigured = controls.createBackend({ sourceEnv: world.sourceEnv() });
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
