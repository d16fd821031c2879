import { createInterface } from "node:readline/promises";
import type { IdeaBrief } from "../artifacts/schemas/index.js";
import { DevflowError } from "../errors/index.js";
import { keepProposedRecord, writeRecord } from "../home/index.js";
import type { CliIO } from "./io.js";
import { PlanEditFile, withPlan } from "./plan-edit.js";

/** One line read from the terminal (the readline closes again, so an editor gets the terminal). */
export async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

export const isYes = (answer: string): boolean => ["y", "yes"].includes(answer.toLowerCase());

/** The brief as the approval prompt shows it. */
export const briefText = (brief: IdeaBrief): string =>
  [
    `Plan ${brief.id}: ${brief.title}`,
    `  ${brief.problem}`,
    ...brief.tasks.map((t) => `  ${t.id} ${t.title}\n      ${t.request}`),
    "",
  ].join("\n");

/** Where the approval asks: the terminal (`devflow plan`) or the chat's line reader. */
export interface PlanPrompter {
  ask(question: string): Promise<string>;
  /**
   * Runs the editor with the terminal handed over to it: the chat stops reading stdin meanwhile, so
   * keys typed into the editor are not also read as chat messages.
   */
  handOver<T>(run: () => Promise<T>): Promise<T>;
}

/** `devflow plan`'s prompter: a readline that is opened per question, so the editor gets the terminal. */
export const terminalPrompter: PlanPrompter = { ask, handOver: (run) => run() };

export interface ApprovalInput {
  repoRoot: string;
  brief: IdeaBrief;
  yes: boolean;
  /** A person can be asked: a terminal, and neither --no-input nor --json. */
  canAsk: boolean;
  io: CliIO;
  /** Default: the terminal. */
  prompter?: PlanPrompter;
}

/**
 * Approve, edit or reject a fresh plan (issue 13, ADR 0060). `--yes` approves; without a terminal
 * to ask on there is no approval (one-line error naming --yes). `e` opens the plan in `$VISUAL` /
 * `$EDITOR`; a valid edit becomes the brief (the model's proposal kept in history/) and is shown
 * and asked about again; an invalid one prints its problems in one line and offers to re-open the
 * same text, so nothing typed is lost. Returns the brief to run, or null when rejected.
 */
export async function approvePlan(input: ApprovalInput): Promise<IdeaBrief | null> {
  const { io, repoRoot } = input;
  const prompter = input.prompter ?? terminalPrompter;
  let brief = input.brief;
  if (input.yes) return brief;
  if (!input.canAsk)
    throw new DevflowError(
      "BAD_OPTION",
      `no terminal to approve plan ${brief.id} on: pass --yes to run it (or --resume ${brief.id} --yes later)`,
    );
  let file: PlanEditFile | null = null;
  let unsaved = false;
  try {
    for (;;) {
      const answer = (await prompter.ask("Run this plan? [y]es, [e]dit, [N]o: ")).toLowerCase();
      if (isYes(answer)) return brief;
      if (answer !== "e" && answer !== "edit") return null;
      file ??= new PlanEditFile(brief);
      const editing = file;
      for (;;) {
        await prompter.handOver(() => editing.edit());
        const edited = await file.read();
        if (edited.ok) {
          await keepProposedRecord(repoRoot, "idea", brief.id);
          brief = withPlan(brief, edited.plan);
          await writeRecord(repoRoot, "idea", brief);
          unsaved = false;
          io.err(`\nThe edited plan is saved.\n${briefText(brief)}\n`);
          break;
        }
        unsaved = true;
        io.err(`The edited plan is not valid: ${edited.problem}\n`);
        if (!isYes((await prompter.ask("Edit it again? [Y/n] ")) || "y")) {
          io.err(`The plan stays as it was; your edit is kept in ${file.path}\n`);
          break;
        }
      }
    }
  } finally {
    if (file && unsaved) io.err(`Your unsaved edit of plan ${brief.id}: ${file.path}\n`);
    else file?.remove();
  }
}
