import type { IdeaBrief, IdeaPlan } from "../artifacts/schemas/index.js";
import { DevflowError } from "../errors/index.js";
import { keepProposedRecord, writeRecord } from "../home/index.js";
import type { CliIO } from "./io.js";
import { PlanEditFile, withPlan } from "./plan-edit.js";
import { readTerminalLine } from "./terminal-line.js";

/** One line read from the terminal; Ctrl-D answers "" (not a yes: the plan is not approved). */
export async function ask(question: string): Promise<string> {
  return (await readTerminalLine(question)) ?? "";
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
 * to ask on there is no approval (one-line error naming --yes). Otherwise `approveOrEdit`; a valid
 * edit is saved as the brief at once (the model's proposal kept in history/).
 * Returns the brief to run, or null when rejected.
 */
export async function approvePlan(input: ApprovalInput): Promise<IdeaBrief | null> {
  const { io, repoRoot, brief } = input;
  if (input.yes) return brief;
  if (!input.canAsk)
    throw new DevflowError(
      "BAD_OPTION",
      `no terminal to approve plan ${brief.id} on: pass --yes to run it (or --resume ${brief.id} --yes later)`,
    );
  return approveOrEdit({
    brief,
    io,
    ...(input.prompter ? { prompter: input.prompter } : {}),
    question: "Run this plan? [y]es, [e]dit, [N]o: ",
    onEdited: async (edited) => {
      await keepProposedRecord(repoRoot, "idea", edited.id);
      await writeRecord(repoRoot, "idea", edited);
      return "The edited plan is saved.";
    },
  });
}

export interface ApproveOrEditInput {
  brief: IdeaBrief;
  io: CliIO;
  /** Default: the terminal. */
  prompter?: PlanPrompter;
  /** The y / e / N question. */
  question: string;
  /** A rule beyond the planner's for an edit (a re-plan: the landed tasks unchanged). */
  check?: (plan: IdeaPlan) => string | null;
  /** A valid edit, before it is shown and asked about again: what became of it, in one line. */
  onEdited: (edited: IdeaBrief) => Promise<string>;
}

/**
 * The approval prompt of a plan, the first one or a re-plan's revision (ADR 0060): `y` approves,
 * `e` opens the plan in `$VISUAL` / `$EDITOR`; a valid edit (the planner's rules plus `check`)
 * becomes the plan shown and asked about again; an invalid one prints its problems in one line and
 * offers to re-open the same text, so nothing typed is lost. Anything else rejects: null.
 */
export async function approveOrEdit(input: ApproveOrEditInput): Promise<IdeaBrief | null> {
  const { io } = input;
  const prompter = input.prompter ?? terminalPrompter;
  let brief = input.brief;
  let file: PlanEditFile | null = null;
  let unsaved = false;
  try {
    for (;;) {
      const answer = (await prompter.ask(input.question)).toLowerCase();
      if (isYes(answer)) return brief;
      if (answer !== "e" && answer !== "edit") return null;
      file ??= new PlanEditFile(brief);
      const editing = file;
      for (;;) {
        await prompter.handOver(() => editing.edit());
        const edited = await file.read(input.check);
        if (edited.ok) {
          brief = withPlan(brief, edited.plan);
          const said = await input.onEdited(brief);
          unsaved = false;
          io.err(`\n${said}\n${briefText(brief)}\n`);
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
