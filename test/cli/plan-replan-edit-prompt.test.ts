/**
 * A re-plan's revised tasks are approved, edited in $EDITOR or declined on a real terminal (a
 * pseudo-terminal) with a stub editor, like the first plan (issue 13, ADR 0060 §5). After T1 and T2
 * landed, T3's critic judges the plan invalid; `y` re-plans; the revision proposes a new T3; `e`
 * opens it; an edit that changes landed T1 is refused in one line and the user's own text re-opened; the
 * second edit (T1 restored, T3's request edited) is asked about again and `y` runs it: the edited revision
 * is brief revision 2 (revision 1 and the model's proposal kept in history/), T3 lands and the plan
 * completes. The clean parts (T2, the revised T3) are used up, so no leftover warning names
 * them. Needs the build (`npm run build`).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { IdeaBrief, PlanRun } from "../../src/artifacts/schemas/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { PLAN_DEMO_REQUEST } from "../../src/fixtures/plan-demo.js";
import { planCassettes, planCoder, readPart, structuredOf, writePart } from "../support/compose-harness.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";
import { answerPromptsInPty, ptyEnv, stubPlanEditor } from "../support/pty-prompts.js";
import { screenOf } from "../support/screen.js";

/**
 * The demo plan whose T3 critic judges the plan invalid; `replan-1.json` answers the demo's T3 again
 * (numbered T1 by the model), `r1-T3.json` replays it cleanly and `review-r1.json` passes the plan.
 */
function t3InvalidCassettes(): string {
  const dir = planCassettes({
    T3: (c) => {
      const critic = structuredOf(c, "critic");
      critic.plan_invalid = true;
      critic.summary = "The exported files carry '#' comment lines in two styles: the plan assumed one.";
    },
  });
  const clean = planCassettes();
  const idea = readPart(clean, "idea");
  const plan = structuredOf(idea, "idea");
  const [, , comments] = plan.tasks as { id: string; depends_on: string[] }[];
  plan.tasks = [{ ...comments, id: "T1", depends_on: [] }];
  writePart(dir, "replan-1", idea);
  writePart(dir, "r1-T3", readPart(clean, "T3"));
  writePart(dir, "review-r1", readPart(clean, "review"));
  return dir;
}

const BAD_TITLE = "Trim emails (changed after it landed)";

/**
 * The stub editor: 1st run changes landed T1's title (invalid) and keeps the original; 2nd run
 * records what it was given (the user's bad text must come back), restores T1 and edits T3's
 * request (not its title: the review's recorded criteria name each task by its title).
 */
function stubEditor(): { command: string; seen: string } {
  return stubPlanEditor(({ dir }) => {
    const original = JSON.stringify(join(dir, "t1-title"));
    return `if (n === 1) {
  writeFileSync(${original}, plan.tasks[0].title);
  plan.tasks[0].title = ${JSON.stringify(BAD_TITLE)};
} else {
  writeFileSync(seen, JSON.stringify(plan));
  plan.tasks[0].title = readFileSync(${original}, "utf8");
  plan.tasks[2].request = plan.tasks[2].request + " (edited)";
}`;
  });
}

it("a re-plan's revision: e opens $EDITOR; changing a landed task is refused in one line and re-opened; the good edit runs as brief revision 2 with history kept", {
  timeout: 900_000,
}, async () => {
  const repo = createFixtureRepo("csv-import");
  const editor = stubEditor();
  const args = [DEVFLOW_BIN, "plan", PLAN_DEMO_REQUEST, "-r", repo, "--yes"];
  args.push("--replay", t3InvalidCassettes(), "--coder", planCoder("repair"));
  // Each prompt gets its answer once, in this order.
  const answers: [string, string][] = [
    ["Re-plan the remaining tasks", "y"],
    ["Run the revised plan?", "e"],
    ["Edit it again?", "y"],
    ["Run the revised plan?", "y"],
  ];
  const { code, raw } = await answerPromptsInPty({
    args,
    cwd: repo,
    env: ptyEnv({ EDITOR: editor.command }),
    rows: 80,
    answers,
    timeoutMs: 880000,
  });
  const screen = screenOf(raw).join("\n");
  expect(code, screen).toBe(0);
  expect(screen).toMatch(/Re-plan 1 proposes \(landed: T1, T2\)/);
  // The bad edit: one line naming the landed task, then the same text re-opened.
  const problem = screen.split("\n").filter((l) => l.includes("The edited plan is not valid:"));
  expect(problem, screen).toHaveLength(1);
  expect(problem[0]).toMatch(/tasks\.0: T1 landed and cannot be changed/);
  const reopened = JSON.parse(readFileSync(editor.seen, "utf8")) as IdeaBrief;
  expect(reopened.tasks[0]?.title, "the second edit must see the user's own (bad) text").toBe(BAD_TITLE);
  expect(screen).toMatch(/The edited plan is valid/);
  expect(screen).toMatch(/re-plan 1 \(T3's critic\): approved \(edited\), brief r2, added T3/);
  // The clean parts were used up: no leftover warning names them.
  expect(screen).not.toMatch(/warning: cassette .*\/(T1|T2|r1-T3)\.json/);

  const dir = join(repo, ".devflow", "idea");
  const read = <T>(...path: string[]): T => JSON.parse(readFileSync(join(dir, ...path), "utf8")) as T;
  const [id = ""] = readdirSync(dir);
  const brief = read<IdeaBrief>(id, "idea_brief.json");
  const r1 = read<IdeaBrief>(id, "history", "idea_brief.r001.json");
  const proposed = read<IdeaBrief>(id, "history", "idea_brief.r002.proposed.json");
  expect(brief.tasks.map((t) => t.id)).toEqual(["T1", "T2", "T3"]);
  expect(brief.tasks[2]?.request).toMatch(/ \(edited\)$/);
  expect(brief.tasks.slice(0, 2), "the landed tasks are unchanged").toEqual(r1.tasks.slice(0, 2));
  expect(proposed.tasks[2]?.request).not.toMatch(/\(edited\)/);
  const run = read<PlanRun>(id, "plan_run.json");
  expect(run.state).toBe("completed");
  expect(run.replans[0]).toMatchObject({
    source: "task",
    plan_task_id: "T3",
    approved: true,
    edited: true,
    brief_revision: 2,
    added: ["T3"],
  });
  expect(run.tasks.map((t) => [t.plan_task_id, t.status])).toEqual([
    ["T1", "landed"],
    ["T2", "landed"],
    ["T3", "landed"],
  ]);
  expect(run.tasks[2]?.request, "the edited task is the one that ran").toMatch(/ \(edited\)$/);
});
