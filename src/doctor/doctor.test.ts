import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { STUBS_DIR } from "../../test/conformance/harness.js";
import { type OpenAIServer, startOpenAIServer, textAnswer } from "../../test/support/openai-server.js";
import { registerDoctor } from "../cli/commands/doctor.js";
import type { CliIO } from "../cli/io.js";
import { findExecutable } from "../process/find-executable.js";
import { runDoctor } from "./doctor.js";
import type { DoctorReport } from "./types.js";

const CLIS = ["junie", "claude", "codex", "gemini", "opencode", "aider"] as const;
/** A distinctive fragment of each backend's install step. */
const INSTALL_STEPS: Record<(typeof CLIS)[number], string> = {
  junie: "curl -fsSL https://junie.jetbrains.com/install.sh | bash",
  claude: "npm install -g @anthropic-ai/claude-code",
  codex: "npm install -g @openai/codex",
  gemini: "npm install -g @google/gemini-cli",
  opencode: "npm install -g opencode-ai",
  aider: "python -m pip install aider-install && aider-install",
};
const KEYS = {
  JUNIE_API_KEY: "junie-doctor-test-key-0123456789abcdef",
  ANTHROPIC_API_KEY: "sk-ant-doctor-test-0123456789abcdef",
  CODEX_API_KEY: "sk-codex-doctor-test-0123456789abcdef",
  GEMINI_API_KEY: "gemini-doctor-test-key-0123456789abcdef",
  OPENAI_API_KEY: "sk-openai-doctor-test-0123456789abcdef",
};
// Everything a backend or the model layer could take a credential or a setting from.
const CONFIG_NAME = /API_KEY|TOKEN|CREDENTIALS|VERTEXAI|LITELLM|OPENAI_BASE_URL|^DEVFLOW_/;

let bin: string;
const closers: Array<() => Promise<void>> = [];

beforeEach(() => {
  bin = mkdtempSync(join(tmpdir(), "devflow-doctor-bin-"));
  // Only git and node: whatever CLIs this machine has installed stay out of sight.
  const git = findExecutable("git", process.env.PATH);
  if (git === null) throw new Error("these tests need git on PATH");
  symlinkSync(git, join(bin, "git"));
  symlinkSync(process.execPath, join(bin, "node"));
  vi.stubEnv("PATH", bin);
  for (const name of Object.keys(process.env)) if (CONFIG_NAME.test(name)) vi.stubEnv(name, "");
});

afterEach(async () => {
  vi.unstubAllEnvs();
  for (const close of closers.splice(0)) await close();
  rmSync(bin, { recursive: true, force: true });
});

function installStubs(): void {
  for (const cli of CLIS) symlinkSync(join(STUBS_DIR, `${cli}.mjs`), join(bin, cli));
}

async function serveModel(): Promise<OpenAIServer> {
  const server = await startOpenAIServer([textAnswer("O"), textAnswer("O")]);
  closers.push(() => server.close());
  vi.stubEnv("OPENAI_BASE_URL", server.url);
  return server;
}

function setKeys(keys: Record<string, string>): void {
  for (const [name, value] of Object.entries(keys)) vi.stubEnv(name, value);
}

/** `devflow doctor <args>` through the real command, with captured output and exit code. */
async function doctorCommand(...args: string[]): Promise<{ out: string; code: number }> {
  let out = "";
  let code = -1;
  const io: CliIO = {
    out: (text) => {
      out += text;
    },
    err: () => {},
    isTTY: false,
    setExitCode: (c) => {
      code = c;
    },
  };
  const program = new Command().exitOverride();
  registerDoctor(program, io);
  await program.parseAsync(["doctor", ...args], { from: "user" });
  return { out, code };
}

const coder = (report: DoctorReport, name: string) => {
  const found = report.coders.find((check) => check.name === name);
  if (found === undefined) throw new Error(`doctor did not list ${name}`);
  return found;
};

describe("devflow doctor on a machine with none of the coder CLIs", () => {
  it("reports each CLI as not installed with its install step, and is not ready", async () => {
    const report = await runDoctor();
    for (const cli of CLIS) {
      const check = coder(report, cli);
      expect(check, cli).toMatchObject({ installed: false, version: null, binary_path: null, ready: false });
      expect(check.hint, cli).toContain(INSTALL_STEPS[cli]);
    }
    expect(coder(report, "command:<shell>")).toMatchObject({ installed: true, ready: true });
    expect(report.checks.git.status).toBe("ok");
    expect(report.checks.model_endpoint.detail).toContain("no key configured");
    expect(report.ready).toBe(false);
    expect(report.defaults.coder).toBe("junie");
    expect(report.blocking).toEqual([
      "model endpoint: no key configured: neither OPENAI_API_KEY nor OPENAI_BASE_URL is set",
      "coder junie: not installed",
    ]);
  });

  it("exits non-zero, with a table that says how to install each CLI", async () => {
    const { out, code } = await doctorCommand();
    expect(code).toBe(2);
    expect(out).toMatch(/\*\s+junie\s+no\s+-\s+missing\s+not installed/);
    for (const cli of CLIS) expect(out).toContain(`  ${cli}: Install`);
    for (const step of Object.values(INSTALL_STEPS)) expect(out).toContain(step);
    expect(out).toContain("Not ready: the defaults cannot run because");
    expect(out).toContain("  - coder junie: not installed");
  });

  it("is still not ready for a CLI coder when the endpoint works", async () => {
    await serveModel();
    const report = await runDoctor();
    expect(report.checks.model_endpoint.status).toBe("ok");
    expect(report.blocking).toEqual(["coder junie: not installed"]);
  });
});

describe("devflow doctor with the stub CLIs on PATH", () => {
  it("reports each installed with its version and credentials, and ready when the endpoint answers", async () => {
    installStubs();
    setKeys(KEYS);
    const server = await serveModel();
    const report = await runDoctor();
    for (const cli of CLIS) {
      expect(coder(report, cli), cli).toMatchObject({
        installed: true,
        version: "9.9.9-stub",
        binary_path: join(bin, cli),
        auth_configured: true,
        ready: true,
        hint: null,
        error: null,
      });
    }
    expect(report.checks.model_endpoint).toMatchObject({ status: "ok", base_url: server.url });
    expect(report.blocking).toEqual([]);
    expect(report.ready).toBe(true);

    const { out, code } = await doctorCommand("--json");
    expect(code).toBe(0);
    const parsed: DoctorReport = JSON.parse(out);
    expect(parsed.ready).toBe(true);
    expect(parsed.coders.find((check) => check.selected)?.name).toBe("junie");
    for (const key of Object.values(KEYS)) expect(out).not.toContain(key);
  });

  it("--coder selects what the defaults need: a backend without its credential is not ready", async () => {
    installStubs();
    setKeys({ JUNIE_API_KEY: KEYS.JUNIE_API_KEY });
    await serveModel();
    const { out, code } = await doctorCommand("--coder", "claude");
    expect(code).toBe(2);
    expect(out).toContain("`devflow iterate --coder claude --model gpt-4.1-mini`");
    expect(out).toMatch(/\*\s+claude\s+yes\s+9\.9\.9-stub\s+missing\s+needs setup/);
    expect(out).toContain("claude: Set ANTHROPIC_API_KEY");
    expect(out).toContain("  - coder claude: no credentials configured");

    expect((await doctorCommand("--coder", "junie")).code).toBe(0);
  });

  it("--coder command:<shell> is listed as itself; an unknown name is explained", async () => {
    await serveModel();
    const command = await runDoctor({ coder: "command:./fix.sh" });
    expect(command.ready).toBe(true);
    expect(command.coders.map((check) => check.name)).toContain("command:./fix.sh");
    expect(command.coders.map((check) => check.name)).not.toContain("command:<shell>");

    const unknown = await runDoctor({ coder: "cursor" });
    expect(unknown.ready).toBe(false);
    const row = coder(unknown, "cursor");
    expect(row).toMatchObject({ selected: true, installed: false, ready: false });
    expect(row.error).toContain('unknown coder "cursor"');
    expect(unknown.blocking).toEqual([
      expect.stringContaining('coder cursor: unknown coder "cursor"; known coders: '),
    ]);
  });

  it("--coder builtin needs only the model endpoint", async () => {
    expect((await runDoctor({ coder: "builtin" })).blocking).toEqual([
      "model endpoint: no key configured: neither OPENAI_API_KEY nor OPENAI_BASE_URL is set",
      expect.stringMatching(/^coder builtin: /),
    ]);
    await serveModel();
    const report = await runDoctor({ coder: "builtin" });
    expect(coder(report, "builtin")).toMatchObject({ selected: true, ready: true });
    expect(report.ready).toBe(true);
  });

  it("an invalid DEVFLOW_* setting shows on its backend's row instead of failing the whole report", async () => {
    installStubs();
    setKeys(KEYS);
    vi.stubEnv("DEVFLOW_CLAUDE_MAX_TURNS", "lots");
    const report = await runDoctor();
    expect(coder(report, "claude")).toMatchObject({ ready: false, installed: false });
    expect(coder(report, "claude").error).toContain('DEVFLOW_CLAUDE_MAX_TURNS="lots" is not valid');
    expect(coder(report, "junie").ready).toBe(true);
  });
});

describe("the doctor bin dir", () => {
  it("holds git and node only (the not-installed tests rely on it)", () => {
    expect(findExecutable("git", bin)).toBe(join(bin, "git"));
    expect(dirname(findExecutable("node", bin) ?? "")).toBe(bin);
    for (const cli of CLIS) expect(findExecutable(cli, bin)).toBeNull();
  });
});
