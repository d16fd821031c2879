/**
 * The config layer (ADR 0047) through the real CLI: `node bin/devflow.js` processes with HOME and
 * XDG_CONFIG_HOME pointed at a temp dir, real config files, a real git repository, a loopback model
 * endpoint. Precedence and sources are read from `devflow doctor`; the trust rules, the commit
 * author and the commit hooks are checked on real iterate runs (replayed model, scripted coder).
 */
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import {
  CORRECT_FIX,
  coderScript,
  DEMO_REQUEST,
  demoCassette,
  tempDir,
  writeCassette,
} from "../support/lane-harness.js";
import { type OpenAIServer, startOpenAIServer } from "../support/openai-server.js";

const BIN = join(PACKAGE_ROOT, "bin", "devflow.js");

interface Run {
  code: number;
  out: string;
  err: string;
}

/** A home of its own: the user's config dir is XDG_CONFIG_HOME/devflow, nothing of the real user's. */
function userHome(config?: unknown) {
  const root = tempDir("devflow-home-");
  const xdg = join(root, "xdg");
  mkdirSync(join(xdg, "devflow"), { recursive: true });
  const file = join(xdg, "devflow", "config.json");
  if (config !== undefined) writeFileSync(file, JSON.stringify(config));
  return { file, env: { HOME: join(root, "home"), XDG_CONFIG_HOME: xdg } };
}

function devflow(args: string[], env: NodeJS.ProcessEnv, cwd = PACKAGE_ROOT): Promise<Run> {
  const clean = { ...process.env };
  for (const name of Object.keys(clean))
    if (name.startsWith("DEVFLOW_") || name.startsWith("OPENAI_")) delete clean[name];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...clean, ...env }, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
      (error, out, err) => {
        const code = error && typeof error.code === "number" ? error.code : error ? 1 : 0;
        resolve({ code, out: String(out), err: String(err) });
      },
    );
  });
}

const git = (cwd: string, ...args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile("git", args, { cwd }, (error, out) => (error ? reject(error) : resolve(String(out).trim()))),
  );

/** An executable hook in the user's repository. */
function hook(repo: string, name: string, body: string): void {
  const path = join(repo, ".git", "hooks", name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

let server: OpenAIServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("config precedence, shown by devflow doctor", () => {
  it("takes default < user file < repo file < env < flag, and says where each value came from", async () => {
    const home = userHome({
      model: { name: "user-model", retries: 4 },
      coder: { timeout_seconds: 1200, backend: "claude" },
      commit: { author_name: "User Name" },
    });
    const repo = createFixtureRepo("csv-import");
    const repoFile = join(repo, "devflow.config.json");
    writeFileSync(
      repoFile,
      JSON.stringify({ model: { name: "repo-model", retries: 3 }, coder: { model: "m2" } }),
    );
    const r = await devflow(["doctor", "--json", "-r", repo, "--model", "flag-model", "--timeout", "2"], {
      ...home.env,
      DEVFLOW_MODEL_RETRIES: "1",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      PATH: process.env.PATH,
    });
    const report = JSON.parse(r.out) as {
      config: { values: Record<string, { value: unknown; source: string; from: string | null }> };
    };
    const v = report.config.values;
    expect(v["model.name"]).toEqual({ value: "flag-model", source: "flag", from: "--model" });
    expect(v["model.retries"]).toEqual({ value: 1, source: "env", from: "DEVFLOW_MODEL_RETRIES" });
    expect(v["model.base_url"]).toEqual({
      value: "http://127.0.0.1:9/v1",
      source: "env",
      from: "OPENAI_BASE_URL",
    });
    expect(v["coder.model"]).toEqual({ value: "m2", source: "repo", from: repoFile });
    expect(v["coder.timeout_seconds"]).toEqual({ value: 1200, source: "user", from: home.file });
    // doctor's --coder has a commander default (junie): a default shown in --help is not a flag.
    expect(v["coder.backend"]).toEqual({ value: "claude", source: "user", from: home.file });
    expect(v["commit.author_name"]).toEqual({ value: "User Name", source: "user", from: home.file });
    expect(v["tests.timeout_seconds"]).toEqual({ value: 300, source: "default", from: null });
    // doctor checks what the config says: the model endpoint probed is the configured one.
    expect(r.out).toContain('"model":"flag-model"');
  });

  it("prints the effective config as a table with each value's source", async () => {
    const home = userHome({ coder: { backend: "builtin" } });
    const r = await devflow(["doctor", "--timeout", "2"], {
      ...home.env,
      DEVFLOW_TEST_TIMEOUT: "42",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    });
    expect(r.out).toMatch(/Configuration \(default < user < repo < env < flag\):/);
    expect(r.out).toMatch(new RegExp(`coder\\.backend\\s+"builtin"\\s+user ${home.file}`));
    expect(r.out).toMatch(/tests\.timeout_seconds\s+42\s+env DEVFLOW_TEST_TIMEOUT/);
    expect(r.out).toMatch(/model\.name\s+"gpt-4\.1-mini"\s+default/);
  });

  it("a bad value in the user's file is one line naming the file, the key and why (exit 2)", async () => {
    const home = userHome({ model: { timeout_seconds: "soon" } });
    const r = await devflow(["doctor"], home.env);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`${home.file}: model\\.timeout_seconds: .*number`));
  });
});

describe("a repository's config is untrusted", () => {
  it.each([
    ["redirect the model endpoint", (url: string) => ({ model: { base_url: url } }), /model\.base_url/],
    ["pick a command: coder", () => ({ coder: { backend: "command:node -e 1" } }), /coder\.backend/],
    ["turn commit hooks on", () => ({ commit: { hooks: true } }), /commit\.hooks/],
  ])("cannot %s: refused before any work, no request reaches the endpoint", async (_what, content, key) => {
    server = await startOpenAIServer([]);
    const home = userHome({});
    const repo = createFixtureRepo("csv-import");
    const repoFile = join(repo, "devflow.config.json");
    writeFileSync(repoFile, JSON.stringify(content(server.url)));
    const r = await devflow(["iterate", DEMO_REQUEST, "-r", repo, "--coder", "builtin"], {
      ...home.env,
      OPENAI_API_KEY: "sk-planted-user-key-0123456789",
    });
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(repoFile);
    expect(r.err).toMatch(key);
    expect(r.err).toMatch(/may not be set by a repository's config/);
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(repo, ".devflow"))).toBe(false);
  });

  it("the user's trust_repo_config lets that repository's config set the endpoint", async () => {
    const repo = createFixtureRepo("csv-import");
    writeFileSync(
      join(repo, "devflow.config.json"),
      JSON.stringify({ model: { base_url: "http://127.0.0.1:9/v1" } }),
    );
    const home = userHome({ trust_repo_config: [repo] });
    const r = await devflow(["doctor", "--json", "-r", repo, "--timeout", "2"], home.env);
    const report = JSON.parse(r.out) as { config: { values: Record<string, { value: unknown }> } };
    expect(report.config.values["model.base_url"]?.value).toBe("http://127.0.0.1:9/v1");
  });
});

describe("commit author and hooks from the user's config, on a real lane run", () => {
  const iterate = (repo: string, env: NodeJS.ProcessEnv) =>
    devflow(
      [
        "iterate",
        DEMO_REQUEST,
        "-r",
        repo,
        "--task-id",
        "t",
        "--coder",
        coderScript(CORRECT_FIX),
        "--replay",
        writeCassette(demoCassette()),
        "--json",
      ],
      env,
    );

  it("commits as the configured author (committer stays devflow); hooks stay off by default", async () => {
    const home = userHome({ commit: { author_name: "Ada Lovelace", author_email: "ada@example.com" } });
    const repo = createFixtureRepo("csv-import");
    // Off by default: a failing hook in the user's repository is not run.
    hook(repo, "pre-commit", "exit 1");
    const r = await iterate(repo, home.env);
    expect(r.code, r.err).toBe(0);
    expect(await git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", "devflow/t")).toBe(
      "Ada Lovelace <ada@example.com>|devflow <devflow@localhost>",
    );
  });

  it("commit.hooks: the user's hooks check the verified tree and the message; a failing one refuses the commit", async () => {
    const home = userHome({ commit: { hooks: true } });
    const repo = createFixtureRepo("csv-import");
    const base = await git(repo, "rev-parse", "HEAD");
    // pre-commit sees exactly the verified tree (the fix is in it); commit-msg gets the message file.
    hook(
      repo,
      "pre-commit",
      'grep -q "row.email.trim()" src/csv-import.js || { echo "fix not in tree"; exit 1; }; echo pre-commit-ran',
    );
    hook(
      repo,
      "commit-msg",
      'grep -q "NEEDS-TICKET" "$1" || { echo "no ticket in: $(head -1 "$1")"; exit 1; }',
    );
    const r = await iterate(repo, home.env);
    expect(r.code, r.err).toBe(3);
    const result = JSON.parse(r.out.trim().split("\n").at(-1) ?? "{}") as {
      terminal: { verdict: string; reason: string };
    };
    expect(result.terminal.verdict).toBe("blocked");
    expect(result.terminal.reason).toMatch(
      /the commit-msg hook .* refused the commit \(exit 1\): no ticket in: devflow\(t\)/,
    );
    expect(await git(repo, "rev-parse", "devflow/t")).toBe(base);
    const log = join(repo, ".devflow", "iterate", "t", "attempts", "attempt-001", "hook-pre-commit.log");
    expect(readFileSync(log, "utf8")).toContain("pre-commit-ran");
  });
});
