import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { IdeaBrief, IdeaPlan } from "../artifacts/schemas/index.js";
import { DevflowError } from "../errors/index.js";

/**
 * Editing a plan at the approval prompt (issue 13, ADR 0060), the first plan's or a re-plan's: the plan part of the brief (title,
 * problem, goals, tasks, open questions, risks) is written as JSON to a private temp file, the
 * user's `$VISUAL` or `$EDITOR` opens it, and the text is validated with the planner's own rules
 * (PlanAnswer: the brief's schema plus tasks numbered T1… in order, depending only on earlier ones).
 * The file outlives a bad edit: opening it again shows the user's text, not the plan as it was.
 */
export class PlanEditFile {
  readonly path: string;
  private readonly dir: string;

  constructor(brief: IdeaBrief) {
    this.dir = mkdtempSync(join(tmpdir(), "devflow-plan-edit-"));
    this.path = join(this.dir, `plan-${brief.id}.json`);
    const plan: IdeaPlan = {
      title: brief.title,
      problem: brief.problem,
      goals: brief.goals,
      tasks: brief.tasks,
      open_questions: brief.open_questions,
      risks: brief.risks,
    };
    writeFileSync(this.path, `${JSON.stringify(plan, null, 2)}\n`, { mode: 0o600 });
  }

  /** Opens the file in the user's editor and waits for it to exit. */
  async edit(env: NodeJS.ProcessEnv = process.env): Promise<void> {
    const editor = editorOf(env);
    // Through the shell, as git does: EDITOR may carry arguments (`code --wait`).
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn("/bin/sh", ["-c", `${editor} "$1"`, "devflow-editor", this.path], {
        stdio: "inherit",
      });
      child.on("error", reject);
      child.on("close", (status) => resolve(status));
    });
    if (code !== 0)
      throw new DevflowError(
        "BAD_OPTION",
        `the editor (${editor}) exited with ${code ?? "a signal"}; the plan was not changed (your text is in ${this.path})`,
      );
  }

  /**
   * The edited plan, or the first problems with it in one line. `check` adds a rule of the caller's
   * after the planner's (a re-plan's edit: the landed tasks unchanged).
   */
  async read(
    check?: (plan: IdeaPlan) => string | null,
  ): Promise<{ ok: true; plan: IdeaPlan } | { ok: false; problem: string }> {
    const text = readFileSync(this.path, "utf8");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ok: false, problem: `not JSON: ${(error as Error).message}` };
    }
    // The planner's rules, not only the schema: a plan runner executes tasks in this order.
    const { PlanAnswer } = await import("../agents/idea/idea.js");
    const parsed = PlanAnswer.safeParse(value);
    if (!parsed.success) return { ok: false, problem: oneLine(parsed.error.issues) };
    const problem = check?.(parsed.data) ?? null;
    return problem ? { ok: false, problem } : { ok: true, plan: parsed.data };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `$VISUAL`, then `$EDITOR`, then vi (what git and crontab fall back to). */
export function editorOf(env: NodeJS.ProcessEnv): string {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || "vi";
}

/** zod issues as one line: `tasks.1.title: Too small…; goals: …` (at most three, then a count). */
function oneLine(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const shown = issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join(".") || "(the plan)"}: ${i.message.replace(/\s+/g, " ")}`);
  const more = issues.length > 3 ? `; and ${issues.length - 3} more` : "";
  return `${shown.join("; ")}${more}`;
}

/** The brief with the edited plan: same id, request and history fields. */
export const withPlan = (brief: IdeaBrief, plan: IdeaPlan): IdeaBrief => ({ ...brief, ...plan });
