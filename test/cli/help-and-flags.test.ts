// Bugs pinned (issue 11, smaller points): no command's help had examples, the environment variables
// it reads or its exit codes; `--yes` meant "never prompt" on iterate but "approve the coder" in the
// chat; `--record` took a path on iterate/route/chat but was a bare switch on playground. Fix: one
// help footer per command (src/cli/command-help.ts, exit codes from src/cli/exit-codes.ts),
// `iterate --no-input` with `--yes` kept as a deprecated alias that says so, `playground --record [dir]`.
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { YES_ON_ITERATE } from "../../src/cli/commands/iterate.js";
import { EXIT, EXIT_MEANINGS, type ExitName } from "../../src/cli/exit-codes.js";
import { buildProgram } from "../../src/cli/program.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { cli } from "../support/cli.js";

const program = buildProgram({ out: () => {}, err: () => {}, isTTY: false, setExitCode: () => {} });

/** Every runnable command (leaves: `cassette check`, not `cassette`). */
function leaves(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((c) =>
    c.commands.length ? leaves(c, [...prefix, c.name()]) : [[...prefix, c.name()]],
  );
}

describe("every command's --help", () => {
  const commands = leaves(program);

  it("covers the commands", () => {
    expect(commands.map((c) => c.join(" "))).toEqual(
      expect.arrayContaining([
        "iterate",
        "demo",
        "doctor",
        "chat",
        "route",
        "playground",
        "cassette check",
        "runs",
        "show",
        "clean",
      ]),
    );
  });

  it.each(commands.map((c) => [c.join(" "), c]))(
    "%s has examples, exit codes and the environment it reads",
    async (_name, path) => {
      const run = await cli(...path, "--help");
      expect(run.code).toBe(0);
      const examples = run.out.split("\nExamples:\n")[1] ?? "";
      expect(examples.split("\n")[0]).toMatch(new RegExp(`^ {2}\\$ devflow ${path.join(" ")}\\b`));
      expect(run.out).toMatch(/\nExit codes:\n {2}0 {2}\S/);
      if (path[0] !== "cassette") expect(run.out).toMatch(/\nEnvironment:\n {2}[A-Z]/);
    },
  );

  it("iterate lists every exit code with the meaning exit-codes.ts gives it", async () => {
    const run = await cli("iterate", "--help");
    for (const name of Object.keys(EXIT) as ExitName[])
      expect(run.out).toContain(`\n  ${EXIT[name]}  ${EXIT_MEANINGS[name]}\n`);
    for (const variable of ["OPENAI_API_KEY", "DEVFLOW_TEST_TIMEOUT", "DEVFLOW_MAX_REQUEST_BYTES"])
      expect(run.out).toMatch(new RegExp(`\\n {2}${variable} +\\S`));
  });
});

describe("--yes and --record mean one thing each", () => {
  it("iterate --yes still works, as --no-input, and says it is deprecated", async () => {
    const run = await cli("iterate", "   ", "-r", createFixtureRepo("csv-import"), "--yes");
    expect(run.err.split("\n")[0]).toBe(`devflow: ${YES_ON_ITERATE}`);
    expect(run.err).toMatch(/request is empty/); // it ran on, as before
    const quiet = await cli("iterate", "   ", "-r", createFixtureRepo("csv-import"), "--no-input");
    expect(quiet.err).not.toContain("deprecated");
    expect(quiet.code).toBe(2);
  });

  it("--record takes a path on every command that has it", () => {
    const takes = leaves(program).flatMap((path) => {
      let c: Command = program;
      for (const name of path) c = c.commands.find((x) => x.name() === name) ?? c;
      const record = c.options.find((o) => o.long === "--record");
      return record ? [[path.join(" "), record.required || record.optional] as const] : [];
    });
    expect(takes.map(([name]) => name).sort()).toEqual(["chat", "iterate", "playground", "route"]);
    for (const [name, takesValue] of takes) expect(takesValue, name).toBe(true);
  });
});
