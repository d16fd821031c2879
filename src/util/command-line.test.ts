import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { commandLine, planResumeCommandLine } from "./command-line.js";

/** The words a POSIX shell makes of `line`: what a user pasting it would run. */
function wordsOf(line: string): string[] {
  return execFileSync("sh", ["-c", `set -- ${line}; printf '%s\\0' "$@"`], { encoding: "utf8" })
    .split("\0")
    .slice(0, -1);
}

describe("command lines a user pastes", () => {
  it("quote only the words that need it, and a shell gives back the same words", () => {
    const words = [
      "devflow",
      "iterate",
      "-r",
      "/tmp/my repo",
      "--coder",
      "command:node -e 'x'",
      "$HOME",
      "a;b",
      "",
    ];
    const line = commandLine(words);
    expect(line.startsWith("devflow iterate -r '/tmp/my repo' --coder 'command:node -e '\\''x'\\''' ")).toBe(
      true,
    );
    expect(wordsOf(line)).toEqual(words);
  });

  // Regression (stop 28): the plan's resume line put the repository path in unquoted, so a path
  // with a space (or `$`, `;`) pasted back ran something else. Fix: one builder, shell-quoted.
  it("the plan's resume line survives a repository path with spaces and quotes", () => {
    const repo = "/home/ada/My Projects/it's $here";
    const line = planResumeCommandLine("plan-7", repo);
    expect(wordsOf(line)).toEqual(["devflow", "plan", "--resume", "plan-7", "--yes", "-r", repo]);
    expect(planResumeCommandLine("plan-7", "/tmp/r")).toBe("devflow plan --resume plan-7 --yes -r /tmp/r");
  });
});
