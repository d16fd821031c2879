/**
 * Regression (issue 12): a coder stopped by its provider in a daemon run (`leaveProviderStopsOpen`,
 * CODER_PROVIDER_STOPPED) whose processes could not all be ended must end `blocked` with
 * process_survived, never be thrown as a provider stop: the throw leaves the attempt open and the
 * daemon requeues and resumes it while a process the coder started can still change the checkout.
 * Cause (pinned here): the provider stop was to be thrown before the survivor check. Fix: the code
 * node checks survivors first (src/lanes/iterate/nodes/code.ts). A process that cannot be ended
 * cannot be made on demand, so that answer is forced (as in test/adversarial/process-survived);
 * the lane, git and the claude stub's structured 429 are real.
 */
import { readFileSync, rmSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runLane } from "../support/lane-harness.js";
import { providerStopCoder } from "../support/provider-stop-coder.js";

vi.mock("../../src/process/containment.js", async (importActual) => {
  const actual = await importActual<typeof import("../../src/process/containment.js")>();
  return { ...actual, endMarkedProcesses: async () => [999_999] };
});

const cleanup: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("a provider stop with a surviving coder process", () => {
  it("ends blocked with process_survived instead of throwing CODER_PROVIDER_STOPPED", async () => {
    const coder = providerStopCoder(1);
    cleanup.push(dirname(coder.bin));
    vi.stubEnv("PATH", `${coder.bin}${delimiter}${process.env.PATH ?? ""}`);
    for (const [name, value] of Object.entries(coder.env)) vi.stubEnv(name, value);
    const run = await runLane({ coder: "claude", lane: { leaveProviderStopsOpen: true } });
    cleanup.push(dirname(run.repo));
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(
      /^process_survived: process\(es\) 999999 started by the coder/,
    );
    expect(coder.runs()).toBe(1);
    const report = JSON.parse(
      readFileSync(
        join(run.result?.artifactDir ?? "", "attempts", "attempt-001", "coder_report.json"),
        "utf8",
      ),
    );
    expect(report.status).toBe("rate_limit");
  }, 240_000);
});
