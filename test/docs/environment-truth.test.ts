// Bug pinned (issue 11, "help has no … environment"; audit of stop 26): the environment a user can
// set and the environment devflow reads had drifted apart. `DEVFLOW_NO_PID_NAMESPACE` (which
// `devflow doctor` names) and `DEVFLOW_PROGRESS_WIDTH` were read but documented only in ADRs or a
// folder README. Fix: both in the README, and this test holding the three together: every
// variable a command's --help lists is read somewhere in src/, and every `DEVFLOW_*` variable
// src/ reads is documented for users (README, docs/*.md or a --help) or named below as devflow's
// own plumbing, with the reason.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit-codes.js";
import { buildProgram } from "../../src/cli/program.js";
import { PACKAGE_ROOT } from "../../src/util/paths.js";

/** Set by devflow for its own children or its tests, never by a user. */
const PLUMBING: Record<string, string> = {
  DEVFLOW_DIR: "a constant's name (devflow's home folder), not a variable",
  DEVFLOW_RUN_PATH: "the confinement script keeps the run's PATH aside in it (ADR 0069)",
  DEVFLOW_RUN_MARKER: "marks a confined run's processes for the leftover scan (ADR 0020)",
  DEVFLOW_LEDGER_DIR: "where a verification run's preload writes its signed results (ADR 0048)",
  DEVFLOW_LEDGER_KEY: "the run ledger's key handed to the preload (ADR 0048)",
  DEVFLOW_LEDGER_KEY_FILE: "the file the preload reads the ledger key from (ADR 0048)",
  DEVFLOW_REPORT_SOCKET: "devflow's report channel for a runner's hook (ADR 0089)",
  DEVFLOW_REPORT_MAX_BYTES: "the report channel's byte limit, for a hook that buffers first (ADR 0089)",
  DEVFLOW_BLOCK_GUARD: "turns on the exit guard preload in a verification run",
  DEVFLOW_CANARY_FILES: "the regression canary's file names, handed to devflow's pytest plugin (ADR 0079)",
  DEVFLOW_CANARY_SCHEDULED: "the pytest plugin's mark that the canary was scheduled (ADR 0083)",
  DEVFLOW_TEST_KILL_AT: "the crash suites' kill points (src/util/test-kill-point.ts)",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(?:ts|mjs|cjs)$/.test(e.name) && !e.name.endsWith(".test.ts"))
    .map((e) => join(e.parentPath, e.name));
}

const SRC = sourceFiles(join(PACKAGE_ROOT, "src"));
const HELP_SOURCES = new Set(["src/cli/help-text.ts", "src/cli/command-help.ts"]);
const read = (path: string) => readFileSync(path, "utf8");

/** The names src/ reads, outside the help texts (a prefix such as `DEVFLOW_MAX_IDLE_` is not one). */
function namesReadBySrc(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of SRC) {
    const rel = relative(PACKAGE_ROOT, file);
    if (HELP_SOURCES.has(rel)) continue;
    for (const [name] of read(file).matchAll(
      /\b(?:DEVFLOW|OPENAI|LANGSMITH|LANGCHAIN)_[A-Z0-9_]*[A-Z0-9]\b/g,
    )) {
      if (name.startsWith("DEVFLOW_TEST_") && name !== "DEVFLOW_TEST_KILL_AT") continue; // test fixtures' secrets
      if (name.startsWith("DEVFLOW_LEAK_TEST_")) continue;
      out.set(name, [...(out.get(name) ?? []), rel]);
    }
  }
  return out;
}

function helpEnvironments(): Map<string, string[]> {
  let text = "";
  const program = buildProgram({
    out: (s) => {
      text += s;
    },
    err: () => {},
    isTTY: false,
    setExitCode: () => {},
  });
  const out = new Map<string, string[]>();
  const visit = (command: Command, path: string[]) => {
    for (const c of command.commands) {
      if (c.commands.length) {
        visit(c, [...path, c.name()]);
        continue;
      }
      text = "";
      c.outputHelp();
      const env = text.split("\nEnvironment:\n")[1]?.split("\n\n")[0] ?? "";
      for (const line of env.split("\n")) {
        for (const name of (line.trim().split(/ {2,}/)[0] ?? "").split(/,\s*/)) {
          if (/^[A-Z][A-Z0-9_]+$/.test(name))
            out.set(name, [...(out.get(name) ?? []), [...path, c.name()].join(" ")]);
        }
      }
    }
  };
  visit(program, []);
  return out;
}

describe("the environment devflow reads is the environment it documents", () => {
  const bySrc = namesReadBySrc();
  const byHelp = helpEnvironments();

  it("finds the variables in both places (the test's own premise)", () => {
    expect(bySrc.has("DEVFLOW_MODEL_TIMEOUT")).toBe(true);
    expect(byHelp.get("DEVFLOW_MODEL_TIMEOUT")).toEqual(expect.arrayContaining(["iterate"]));
    expect(byHelp.size).toBeGreaterThan(5);
  });

  it("every variable a --help lists is read by devflow", () => {
    // VISUAL and EDITOR are read by name inside one string; the rest must appear in src/.
    const allSrc = SRC.filter((f) => !HELP_SOURCES.has(relative(PACKAGE_ROOT, f)))
      .map(read)
      .join("\n");
    const unread = [...byHelp.keys()].filter((name) => !new RegExp(`\\b${name}\\b`).test(allSrc));
    expect(unread).toEqual([]);
  });

  it("every DEVFLOW_* variable devflow reads is documented for users or is its own plumbing", () => {
    const docs = [
      read(join(PACKAGE_ROOT, "README.md")),
      ...readdirSync(join(PACKAGE_ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => read(join(PACKAGE_ROOT, "docs", f))),
    ].join("\n");
    const undocumented = [...bySrc.entries()]
      .filter(([name]) => name.startsWith("DEVFLOW_") && !(name in PLUMBING))
      .filter(([name]) => !byHelp.has(name) && !new RegExp(`\\b${name}\\b`).test(docs))
      .map(([name, files]) => `${name} (read in ${files[0]})`);
    expect(undocumented).toEqual([]);
  });

  it("names no plumbing variable that devflow no longer reads", () => {
    expect(Object.keys(PLUMBING).filter((name) => !bySrc.has(name))).toEqual([]);
  });
});

describe("the README's exit codes are the ones devflow exits with", () => {
  it("lists exactly the codes of src/cli/exit-codes.ts", () => {
    const readme = read(join(PACKAGE_ROOT, "README.md"));
    const line = readme.slice(readme.indexOf("Exit codes: "), readme.indexOf("On Ctrl-C or SIGTERM devflow"));
    const listed = [...line.matchAll(/\*\*(\d+)\*\*/g)].map((m) => Number(m[1]));
    expect(listed).toEqual(Object.values(EXIT));
  });
});
