import { capabilitiesHelp } from "../agents/neither/neither.js";
import type { IntakeSession } from "../lanes/intake/session.js";
import { runsTable, showRun } from "./show.js";

interface SlashCommand {
  name: string;
  usage: string;
  about: string;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: "help", usage: "/help", about: "this help" },
  { name: "runs", usage: "/runs", about: "the tasks and records of this thread, with their verdicts" },
  {
    name: "show",
    usage: "/show <id>",
    about: "a summary of a task's artifacts (or of an insight/idea record)",
  },
  {
    name: "thread",
    usage: "/thread",
    about: "this thread's id and repository, and how to continue it later",
  },
  { name: "resume", usage: "/resume <task_id>", about: "continue an iterate task that was stopped" },
  { name: "quit", usage: "/quit", about: "leave (the thread is kept; Ctrl-C or Ctrl-D at the prompt too)" },
];

export type SlashOutcome =
  | { kind: "output"; command: string; text: string; data?: unknown }
  | { kind: "quit" }
  | { kind: "resume"; taskId: string };

const known = () => SLASH_COMMANDS.map((c) => c.usage).join(", ");

/** Runs a `/command` line. Unknown commands and missing arguments answer with what is known. */
export async function runSlash(line: string, session: IntakeSession): Promise<SlashOutcome> {
  const [word = "", ...args] = line.trim().slice(1).split(/\s+/);
  const name = word.toLowerCase();
  const output = (text: string, data?: unknown): SlashOutcome => ({
    kind: "output",
    command: name,
    text,
    ...(data === undefined ? {} : { data }),
  });
  switch (name) {
    case "help":
      return output(
        `${SLASH_COMMANDS.map((c) => `  ${c.usage.padEnd(18)} ${c.about}`).join("\n")}\nAnything else is a message.\n\n${capabilitiesHelp()}`,
      );
    case "runs": {
      const results = await session.results();
      return output(await runsTable(session.repoRoot, results), results);
    }
    case "show":
      if (!args[0]) return output("Usage: /show <id> (/runs lists the ids of this thread)");
      return output(await showRun(session.repoRoot, args[0]));
    case "thread": {
      const info = session.info();
      const pending = await session.pendingQuestions();
      const lines = [
        `thread    ${info.id}`,
        `repo      ${session.repoRoot}`,
        `messages  ${info.turns}, started ${info.created_at}`,
        pending ? `waiting   for your answer to ${pending.task_id}'s questions` : "",
        `continue  devflow chat --thread ${info.id} --repo ${session.repoRoot}`,
      ];
      return output(lines.filter(Boolean).join("\n"), { ...info, repo: session.repoRoot, pending });
    }
    case "resume":
      if (!args[0]) return output("Usage: /resume <task_id> (/runs lists the tasks of this thread)");
      return { kind: "resume", taskId: args[0] };
    case "quit":
    case "exit":
      return { kind: "quit" };
    default:
      return output(`Unknown command /${word}. Known commands: ${known()}.`);
  }
}
