/**
 * Hostile review (s16/attack6) of coder provider stops left open for the daemon: a coder that edits
 * the checkout and then prints a rate limit. The resumed attempt starts from a checkout holding
 * those edits; they must not reach a `completed` commit unjudged (absent from the attempt's diff).
 * Real lane, real git, the claude stub behind a wrapper that plants a file on the stopped run.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runLane } from "../../support/lane-harness.js";
import { providerStopCoder } from "../../support/provider-stop-coder.js";

const cleanup: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("attack6: a coder that edits, then prints a rate limit", () => {
  it("withstands: the stopped run's edits are in the resumed attempt's judged diff, not slipped into the commit", async () => {
    const coder = providerStopCoder(1);
    cleanup.push(dirname(coder.bin));
    const wrapper = join(coder.bin, "claude");
    // On the stopped run, plant a file in the checkout (cwd) before the 429.
    const text = readFileSync(wrapper, "utf8").replace(
      "then export STUB_SCENARIO=rate_limit;",
      "then echo 'module.exports = \"backdoor\";' > PLANTED_BY_STOPPED_RUN.js; export STUB_SCENARIO=rate_limit;",
    );
    expect(text).toContain("PLANTED_BY_STOPPED_RUN");
    writeFileSync(wrapper, text);
    vi.stubEnv("PATH", `${coder.bin}${delimiter}${process.env.PATH ?? ""}`);
    for (const [name, value] of Object.entries(coder.env)) vi.stubEnv(name, value);

    const first = await runLane({ coder: "claude", lane: { leaveProviderStopsOpen: true } });
    cleanup.push(dirname(first.repo));
    expect(first.result).toBeNull();
    const resumed = await runLane({
      coder: "claude",
      repo: first.repo,
      resume: true,
      lane: { leaveProviderStopsOpen: true },
    });
    console.log(`ATTACK6 resumed.error=${String(resumed.error)}`);
    const verdict = resumed.result?.terminal.verdict;
    const branch = resumed.result?.terminal.branch ?? "";
    const patches = execFileSync(
      "sh",
      ["-c", `find ${JSON.stringify(first.repo)} -name diff.patch -path '*attempt-001*' | xargs cat`],
      {
        encoding: "utf8",
      },
    );
    let inCommit = false;
    try {
      execFileSync("git", ["-C", first.repo, "cat-file", "-e", `${branch}:PLANTED_BY_STOPPED_RUN.js`]);
      inCommit = true;
    } catch {}
    console.log(
      `ATTACK6 provider-stop: verdict=${verdict} branch=${branch} inCommit=${inCommit} inJudgedDiff=${patches.includes("PLANTED_BY_STOPPED_RUN")}`,
    );
    // If it reached the result, the judge must have seen it in attempt-001's diff.
    expect(patches).toContain("PLANTED_BY_STOPPED_RUN");
    if (inCommit) expect(verdict).toBe("completed");
  }, 300_000);
});
