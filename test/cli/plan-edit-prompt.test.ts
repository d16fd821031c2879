/**
 * `devflow plan` approve / edit / reject on a real terminal (a pseudo-terminal), with a stub
 * editor (issue 13, ADR 0060). `e` opens the plan in $EDITOR; a bad edit prints the zod problem in
 * one line and re-opens the user's own text (nothing typed is lost); a valid edit becomes the brief
 * (the model's proposal kept in history/idea_brief.proposed.json) and is asked about again; `n`
 * then rejects it (exit 0, nothing ran). Needs the build (`npm run build`).
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { PLAN_DEMO_REQUEST } from "../../src/fixtures/plan-demo.js";
import { planCassettes } from "../support/compose-harness.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";
import { answerPromptsInPty, ptyEnv, stubPlanEditor } from "../support/pty-prompts.js";
import { screenOf } from "../support/screen.js";

/**
 * The stub editor: 1st run blanks T2's title (invalid), 2nd run records what it was given (the
 * user's bad text must come back) and writes a valid plan with T3 renamed.
 */
function stubEditor(): { command: string; seen: string } {
  return stubPlanEditor(
    () => `if (n === 1) plan.tasks[1].title = "";
else {
  writeFileSync(seen, JSON.stringify(plan));
  plan.tasks[1].title = "Reject duplicate emails";
  plan.tasks[2].title = "Skip comment lines (edited)";
}`,
  );
}

it("e opens $EDITOR; a bad edit shows its zod problem in one line and re-opens the user's text; a good edit is saved and asked again; n rejects", {
  timeout: 120_000,
}, async () => {
  const cassettes = planCassettes();
  const repo = createFixtureRepo("csv-import");
  const editor = stubEditor();
  const args = [
    DEVFLOW_BIN,
    "plan",
    PLAN_DEMO_REQUEST,
    "-r",
    repo,
    "--replay",
    cassettes,
    "--coder",
    "command:true",
  ];
  // Each prompt gets its answer once: e (edit), y (edit again), n (reject the edited plan).
  const answers: [string, string][] = [
    ["Run this plan?", "e"],
    ["Edit it again?", "y"],
    ["Run this plan?", "n"],
  ];
  const { code, raw } = await answerPromptsInPty({
    args,
    cwd: repo,
    env: ptyEnv({ EDITOR: editor.command }),
    rows: 60,
    answers,
    timeoutMs: 110000,
  });
  const screen = screenOf(raw).join("\n");
  expect(code, screen).toBe(0);
  // The bad edit: one line naming the field, then the same text re-opened.
  const problem = screen.split("\n").filter((l) => l.includes("The edited plan is not valid:"));
  expect(problem, screen).toHaveLength(1);
  expect(problem[0]).toMatch(/tasks\.1\.title: /);
  const reopened = JSON.parse(readFileSync(editor.seen, "utf8")) as { tasks: { title: string }[] };
  expect(reopened.tasks[1]?.title, "the second edit must see the user's own (bad) text").toBe("");
  // The good edit is the brief now, shown again; the model's proposal is kept.
  expect(screen).toMatch(/The edited plan is saved\./);
  expect(screen).toMatch(/T3 Skip comment lines \(edited\)/);
  expect(screen).toMatch(/not run \(rejected\)/);
  const dir = join(repo, ".devflow", "idea");
  const [planId] = readdirSync(dir);
  const brief = JSON.parse(readFileSync(join(dir, planId ?? "", "idea_brief.json"), "utf8"));
  expect(brief.tasks[2].title).toBe("Skip comment lines (edited)");
  const proposed = JSON.parse(
    readFileSync(join(dir, planId ?? "", "history", "idea_brief.proposed.json"), "utf8"),
  );
  expect(proposed.tasks[2].title).not.toBe("Skip comment lines (edited)");
  expect(existsSync(join(dir, planId ?? "", "plan_run.json")), "a rejected plan never runs").toBe(false);
});
