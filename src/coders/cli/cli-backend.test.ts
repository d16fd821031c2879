import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_HOME_DIR, createCliBackend } from "./cli-backend.js";
import type { CliBackendSpec } from "./types.js";

/** A minimal spec over a shell script, to test the shared runner apart from any real CLI contract. */
function scriptSpec(binary: string): CliBackendSpec {
  return {
    name: "fake",
    binary,
    installHint: "install fake",
    authHint: "export FAKE_KEY",
    passEnv: ["FAKE_KEY"],
    authConfigured: (env) => env.FAKE_KEY !== undefined,
    homeEnv: (configHome) => ({ FAKE_HOME: configHome }),
    prepare: (input) => ({
      args: [],
      stdin: "closed",
      env: { FROM_SPEC: "1" },
      files: [{ path: join(input.configHome, "conf", "settings.json"), content: "{}" }],
      onStdoutLine: () => {},
      interpret: async () => ({ status: "ok", finalMessage: "done", usage: null, error: null }),
    }),
  };
}

describe("createCliBackend", () => {
  let root: string;
  let bin: string;
  const script = (name: string, body: string): void => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  const source = () => ({ PATH: `${bin}:/usr/bin:/bin`, FAKE_KEY: "fake-key-123456" });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "devflow-cli-backend-"));
    bin = join(root, "bin");
    mkdirSync(join(root, "wt"), { recursive: true });
    mkdirSync(bin);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("probe says how to repair a binary whose --version fails", async () => {
    script("fake", "exit 3");
    const probe = await createCliBackend(scriptSpec("fake"), { sourceEnv: source() }).probe();
    expect(probe).toMatchObject({ installed: true, version: null, authConfigured: true });
    expect(probe.hint).toContain("did not report a version (exit code 3)");
    expect(probe.hint).toContain("install fake");
  });

  it("lays the config home last: a request cannot point the CLI back at a shared home", async () => {
    const dump = join(root, "env.txt");
    script("fake", `env > ${dump}; ls "$FAKE_HOME/conf" >> ${dump}`);
    const result = await createCliBackend(scriptSpec("fake"), { sourceEnv: source() }).run({
      prompt: "p",
      worktree: join(root, "wt"),
      attemptDir: join(root, "attempt"),
      scratchDir: join(root, "scratch"),
      env: { FAKE_HOME: "/home/user/.fake", EJ_RUNNER_PWD: "/elsewhere" },
      timeoutMs: 30_000,
    });
    expect(result.status).toBe("ok");
    const seen = readFileSync(dump, "utf8");
    // The config home is in the scratch dir, never in the attempt dir (ADR 0018).
    expect(seen).toContain(`FAKE_HOME=${join(root, "scratch", CONFIG_HOME_DIR)}`);
    expect(seen).not.toContain(join(root, "attempt"));
    expect(seen).toContain("FROM_SPEC=1");
    expect(seen).toContain("FAKE_KEY=fake-key-123456");
    expect(seen).toContain("settings.json");
    expect(seen).not.toContain("EJ_RUNNER_PWD");
  });

  it("passes the spec's reading of each stdout line to onActivity; a describer that throws changes nothing", async () => {
    script(
      "fake",
      `echo '{"step":"$ npm test"}'; echo 'plain'; echo '{"step":"boom"}'; echo '{"step":"Edit a.ts"}'`,
    );
    const seen: string[] = [];
    const spec: CliBackendSpec = {
      ...scriptSpec("fake"),
      activity: (line) => {
        const step = (JSON.parse(line.startsWith("{") ? line : "{}") as { step?: string }).step ?? null;
        if (step === "boom") throw new Error("describer broke");
        return step;
      },
    };
    const result = await createCliBackend(spec, { sourceEnv: source() }).run({
      prompt: "p",
      worktree: join(root, "wt"),
      attemptDir: join(root, "attempt"),
      scratchDir: join(root, "scratch"),
      env: {},
      timeoutMs: 30_000,
      onActivity: (text) => seen.push(text),
    });
    expect(result.status).toBe("ok");
    expect(seen).toEqual(["$ npm test", "Edit a.ts"]);
  });
});
