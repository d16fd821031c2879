import type { Command } from "commander";
import { commandLine } from "../util/command-line.js";

/**
 * The exact command line that continues a task: `devflow <command> --resume --task-id <id>` plus
 * every option the user gave on the command line (the coder, the repository, the cassette, limits),
 * so the resumed run works with the same settings. The request itself is not repeated: the task
 * holds it.
 */
export function resumeCommandLine(command: Command, taskId: string): string {
  const words = ["devflow", command.name(), "--resume", "--task-id", taskId];
  for (const option of command.options) {
    const key = option.attributeName();
    if (command.getOptionValueSource(key) !== "cli" || !option.long) continue;
    if (option.long === "--resume" || option.long === "--task-id") continue;
    const value = command.getOptionValue(key) as unknown;
    if (value === true) words.push(option.long);
    else if (value !== false && value !== undefined) words.push(option.long, String(value));
  }
  return commandLine(words);
}

/**
 * The command that continues a stopped task, when no command line of its run is at hand (`devflow
 * show`): the repository by path, so it works from any directory, and the coder the task ran with,
 * so the resumed attempts are not handed to another backend. Options of the first run that are not
 * recorded (a cassette, limits) are the user's to add again.
 */
export function taskResumeCommandLine(taskId: string, repoRoot: string, coder: string | null): string {
  const words = ["devflow", "iterate", "--resume", "--task-id", taskId, "-r", repoRoot];
  if (coder !== null) words.push("--coder", coder);
  return commandLine(words);
}
