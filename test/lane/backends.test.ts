import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CoderReport } from "../../src/artifacts/schemas/index.js";
import { CODER_ENV } from "../../src/coders/cli/env-options.js";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { runLane, TASK_ID, tempDir } from "../support/lane-harness.js";

/**
 * The iterate lane end to end with each CLI backend, each against its stub (test/stubs/<cli>.mjs):
 * the registered backend (not a test double) is resolved by name, finds the stub first on PATH,
 * passes it its documented flags, and the stub makes the real fix and reports it in that CLI's
 * own structured format.
 */

const STUBS_DIR = join(PACKAGE_ROOT, "test", "stubs");
const FIX = {
  path: "src/csv-import.js",
  find: "if (!EMAIL.test(row.email))",
  replace: "if (!EMAIL.test(row.email.trim()))",
};

/** Each backend with the fake credential that makes it consider itself configured. */
const BACKENDS: ReadonlyArray<{ backend: string; credentials: Record<string, string> }> = [
  { backend: "junie", credentials: { JUNIE_API_KEY: "junie-lane-test-key-0123456789abcdef" } },
  { backend: "claude", credentials: { ANTHROPIC_API_KEY: "sk-ant-lane-test-0123456789abcdef" } },
  { backend: "codex", credentials: { CODEX_API_KEY: "sk-codex-lane-test-0123456789abcdef" } },
  { backend: "gemini", credentials: { GEMINI_API_KEY: "gemini-lane-test-key-0123456789abcdef" } },
  { backend: "opencode", credentials: { ANTHROPIC_API_KEY: "sk-ant-lane-test-0123456789abcdef" } },
  { backend: "aider", credentials: { OPENAI_API_KEY: "sk-aider-lane-test-0123456789abcdef" } },
];

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * A bin dir whose `<cli>` runs the stub in its "success" scenario with the fix as its edit. The
 * runner hands a CLI only allowlisted variables, so the scenario is baked into this wrapper rather
 * than passed through the environment.
 */
function stubBin(cli: string): string {
  const dir = tempDir(`devflow-lane-${cli}-`);
  const spec = join(dir, "edit-spec.json");
  writeFileSync(spec, JSON.stringify(FIX));
  mkdirSync(join(dir, "bin"));
  const wrapper = join(dir, "bin", cli);
  writeFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `export STUB_SCENARIO=success STUB_EDIT_SPEC=${shellQuote(spec)}`,
      `exec ${shellQuote(process.execPath)} ${shellQuote(join(STUBS_DIR, `${cli}.mjs`))} "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(wrapper, 0o755);
  return dirname(wrapper);
}

const cleanup: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("iterate lane with each CLI coder backend against its stub", () => {
  for (const { backend, credentials } of BACKENDS) {
    it(`${backend}: completes with the stub's fix, reported by the ${backend} backend`, async () => {
      const bin = stubBin(backend);
      cleanup.push(dirname(bin));
      vi.stubEnv("PATH", `${bin}${delimiter}${process.env.PATH ?? ""}`);
      // The machine's own coder settings must not change what this test runs.
      for (const name of Object.values(CODER_ENV)) vi.stubEnv(name, "");
      for (const [name, value] of Object.entries(credentials)) vi.stubEnv(name, value);

      const run = await runLane({ coder: backend });
      cleanup.push(dirname(run.repo));

      expect(run.error).toBeNull();
      expect(run.result?.terminal.verdict).toBe("completed");
      const iterator = await run.store.read("iterator_run");
      expect(iterator?.coder_backend).toBe(backend);
      expect(iterator?.attempts.map((a) => a.attempt_id)).toEqual(["attempt-001"]);

      const report = await run.store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
      expect(report?.backend).toBe(backend);
      expect(report?.status).toBe("ok");
      expect(report?.exit_code).toBe(0);
      // Read from the CLI's structured result (Junie's output file, claude's result event, ...).
      expect(report?.final_message).not.toBe("");
      expect(report?.usage?.input_tokens).toBeGreaterThan(0);
      // From git: some stubs' own reports name stub-edit.txt, which was never written.
      expect(report?.changed_files).toEqual([FIX.path]);
      expect(existsSync(join(run.result?.worktree ?? "", "stub-edit.txt"))).toBe(false);

      const committed = execFileSync("git", ["show", `devflow/${TASK_ID}:${FIX.path}`], {
        cwd: run.repo,
        encoding: "utf8",
      });
      expect(committed).toContain(FIX.replace);
      const transcript = readFileSync(
        join(run.store.dir, "attempts", "attempt-001", "coder_transcript.log"),
        "utf8",
      );
      for (const secret of Object.values(credentials)) expect(transcript).not.toContain(secret);
    });
  }
});
