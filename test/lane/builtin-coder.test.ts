import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CoderReport, VerifierEnvelope } from "../../src/artifacts/schemas/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { openTaskStore } from "../../src/home/index.js";
import type { Cassette } from "../../src/models/cassette.js";
import { mountNamespaceWorks } from "../../src/process/mount-namespace.js";
import { cli } from "../support/cli.js";
import { confinementAttack } from "../support/confinement-attack.js";
import { DEMO_REQUEST, demoCassette, TASK_ID, writeCassette } from "../support/lane-harness.js";
import { fingerprintRepo, unexpectedChanges } from "../support/repo-fingerprint.js";

/** The demo cassette plus the builtin coder's turns: read the code, edit_file the fix, check it, finish. */
function builtinCassette(): Cassette {
  const cassette = demoCassette();
  cassette.calls.coder = [
    {
      content: "Reading the import code.",
      tool_calls: [{ name: "read_file", args: { path: "src/csv-import.js" } }],
      usage: { input_tokens: 1800, output_tokens: 40 },
    },
    {
      content: "validateRow tests the untrimmed email; trimming it before the pattern check.",
      tool_calls: [
        {
          name: "edit_file",
          args: {
            path: "src/csv-import.js",
            old_string: "if (!EMAIL.test(row.email))",
            new_string: "if (!EMAIL.test(row.email.trim()))",
          },
        },
      ],
      usage: { input_tokens: 2100, output_tokens: 80 },
    },
    {
      content: "Running the repro test.",
      tool_calls: [{ name: "run_command", args: { command: "node --test test/email-trim.test.js" } }],
      usage: { input_tokens: 2300, output_tokens: 30 },
    },
    {
      content:
        "Trimmed the email in validateRow before the pattern check; node --test test/email-trim.test.js passes.",
      usage: { input_tokens: 2500, output_tokens: 35 },
    },
  ];
  return cassette;
}

const cleanup: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("iterate lane with --coder builtin", () => {
  it("completes the csv-import demo with the builtin coder's edit_file fix, replayed from a cassette", async () => {
    const repo = createFixtureRepo("csv-import");
    const cassette = writeCassette(builtinCassette());
    cleanup.push(dirname(repo), dirname(cassette));
    const run = await cli(
      "iterate",
      DEMO_REQUEST,
      "-r",
      repo,
      "--coder",
      "builtin",
      "--replay",
      cassette,
      "--task-id",
      TASK_ID,
      "--no-input",
    );
    expect(run.code, run.err).toBe(0);
    expect(run.err).toMatch(/code +✓ attempt-001 ok, 1 file\(s\) changed/);

    const store = openTaskStore(repo, TASK_ID);
    const iterator = await store.read("iterator_run");
    expect(iterator?.terminal?.verdict).toBe("completed");
    expect(iterator?.coder_backend).toBe("builtin");

    const report = await store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
    expect(report).toMatchObject({
      backend: "builtin",
      status: "ok",
      exit_code: null,
      changed_files: ["src/csv-import.js"],
      coder_commits: [],
      final_message: expect.stringContaining("Trimmed the email"),
      usage: { input_tokens: 8700, output_tokens: 185 },
    });
    const transcript = readFileSync(
      join(store.dir, "attempts", "attempt-001", "coder_transcript.log"),
      "utf8",
    );
    expect(transcript).toContain('"name":"edit_file"');
    expect(transcript).toMatch(/"type":"tool_result","name":"run_command".*exit code: 0/);
    for (const name of ["seam", "seam_integrity", "regression", "scope", "critic"]) {
      const envelope = await store.readAttemptJson("attempt-001", `verifiers/${name}.json`, VerifierEnvelope);
      expect(envelope?.overall_result, name).toBe("pass");
    }

    // devflow committed the builtin coder's fix on the task branch.
    const show = execFileSync("git", ["show", `devflow/${TASK_ID}:src/csv-import.js`], {
      cwd: repo,
      encoding: "utf8",
    });
    expect(show).toContain("if (!EMAIL.test(row.email.trim()))");
  });

  it("without a model endpoint, --coder builtin is refused before any work, saying what to set", async () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("OPENAI_BASE_URL", "");
    const repo = createFixtureRepo("csv-import");
    cleanup.push(dirname(repo));
    const run = await cli("iterate", DEMO_REQUEST, "-r", repo, "--coder", "builtin", "--no-input");
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/OPENAI_API_KEY/);
    expect(execFileSync("git", ["branch", "--list", "devflow/*"], { cwd: repo, encoding: "utf8" })).toBe("");
  });

  /**
   * Attack: the builtin coder's run_command writes into the user's checkout, the task's artifacts,
   * the checkpoint database and the user's node_modules by absolute path, and leaves a `setsid`
   * loop behind. Cause: run_command ran in devflow's own process tree, unconfined (ADR 0025 left
   * it out): the writes landed (found afterwards by the fingerprint, node_modules and state not
   * at all) and the loop outlived the coder. Fix (ADR 0031): the builtin coder's tools carry the
   * coder run's confinement; run_command runs like a CLI coder (PID namespace, run marker, mount
   * plan). The writes fail, the loop dies with the command, and the real fix still completes.
   */
  it.runIf(mountNamespaceWorks())(
    "run_command is confined like a CLI coder: writes outside its checkout fail and a setsid loop dies with the command",
    async () => {
      const { repo, heartbeat, call, dirs } = confinementAttack("devflow-builtin-confined-");
      cleanup.push(...dirs);
      const cassette = builtinCassette();
      cassette.calls.coder?.splice(2, 0, call);
      const cassettePath = writeCassette(cassette);
      cleanup.push(dirname(cassettePath));
      const before = fingerprintRepo(repo);
      const run = await cli(
        "iterate",
        DEMO_REQUEST,
        "-r",
        repo,
        "--coder",
        "builtin",
        "--replay",
        cassettePath,
        "--task-id",
        TASK_ID,
        "--no-input",
      );

      const transcript = readFileSync(
        join(openTaskStore(repo, TASK_ID).dir, "attempts", "attempt-001", "coder_transcript.log"),
        "utf8",
      );
      const results = transcript.split("\n").filter((l) => l.includes('"name":"run_command"'));
      expect(results.join("\n")).toMatch(/Read-only file system[\s\S]*started/);
      // The loop ran (it wrote a heartbeat) and died with the command.
      expect(existsSync(heartbeat)).toBe(true);
      const beats = readFileSync(heartbeat, "utf8").length;
      await new Promise((r) => setTimeout(r, 400));
      expect(readFileSync(heartbeat, "utf8").length).toBe(beats);
      // Nothing outside the coder's checkout changed, and the real fix completed.
      expect(unexpectedChanges(before, fingerprintRepo(repo), TASK_ID)).toEqual([]);
      expect(readFileSync(join(repo, "node_modules", "left-pad", "index.js"), "utf8")).toBe(
        "module.exports = 1;\n",
      );
      expect(run.code, run.err).toBe(0);
      expect((await openTaskStore(repo, TASK_ID).read("iterator_run"))?.terminal?.verdict).toBe("completed");
    },
    180_000,
  );
});
