import type { ExpectedBehaviour } from "../../scenarios/scenario.js";
import { check, checkExpected, checkProblems } from "../grade.js";
import type { Check } from "../types.js";
import type { RunArtifacts } from "./run-artifacts.js";

/** Verbs and tokens that make a criterion checkable by someone else: a value, a name, an outcome. */
const OBSERVABLE =
  /["'`“”‘’]|\d|\w\(|\b[a-z]+[A-Z]\w*\b|\w\/\w|\.\w{2,4}\b|\b(returns?|shows?|displays?|reads?|imports|imported|rejects?|rejected|exits?|responds?|answers?|passes|pass|fails?|prints?|accepted|equals?|contains?|lists?|says?)\b/;
/** Paths that put the whole repository in scope. */
const CATCH_ALL = new Set(["**", "*", "**/*", ".", "./", "/"]);

const normalize = (s: string) => s.trim().toLowerCase().replace(/\s+/g, " ");

/**
 * Task-artifact completeness (docs/origins.md#03-evals, framing): the task type, the shared base shape with
 * only its own task_details, current vs desired behaviour, observable success criteria, surface
 * hints, facts kept apart from assumptions, blocking unknowns when the request is underspecified,
 * and a bounded scope.
 */
export function gradeTaskArtifact(a: RunArtifacts, e: ExpectedBehaviour): Check[] {
  const task = a.task;
  if (!task) return [check("task_artifact_present", false, "task_artifact.json is missing or invalid")];
  const checks: Check[] = [check("task_artifact_present", true, "")];

  checks.push(...checkExpected("task_type", "task_type", task.task_type, e.taskType));
  const details = task.task_details;
  const others = (Object.keys(details) as (keyof typeof details)[]).filter(
    (k) => k !== task.task_type && details[k] !== null,
  );
  checks.push(
    check(
      "shared_task_details",
      details[task.task_type] !== null && others.length === 0,
      details[task.task_type] === null
        ? `task_details.${task.task_type} is null: the details of the task's own type are missing`
        : `task_details also fills ${others.join(", ")}: only task_details.${task.task_type} belongs to this task`,
    ),
  );
  checks.push(
    check(
      "current_vs_desired",
      normalize(task.current_behavior) !== normalize(task.desired_behavior),
      "current_behavior and desired_behavior say the same thing",
    ),
  );
  const vague = task.success_criteria.filter((c) => !OBSERVABLE.test(c));
  checks.push(
    check(
      "observable_success_criteria",
      vague.length === 0,
      `not observable (no value, name or outcome to check): ${vague.map((c) => JSON.stringify(c)).join(", ")}`,
    ),
  );
  const hints = Object.values(task.surface_hints).flat();
  const missingHints = (e.surfaceHints ?? []).filter((h) => !hints.some((x) => x.includes(h)));
  checks.push(
    check(
      "surface_hints",
      hints.length > 0 && missingHints.length === 0,
      hints.length === 0
        ? "no surface hint (file, route, component or function) was captured"
        : `the request names ${missingHints.join(", ")} but no surface hint does`,
    ),
  );
  const facts = new Set(task.facts.map(normalize));
  const both = task.assumptions.filter((x) => facts.has(normalize(x)));
  checks.push(
    check(
      "facts_vs_assumptions",
      task.facts.length > 0 && both.length === 0,
      task.facts.length === 0
        ? "no facts recorded: what the user stated must be kept apart from what was assumed"
        : `listed both as fact and as assumption: ${both.join("; ")}`,
    ),
  );
  if (e.recommendedNextStep && e.recommendedNextStep !== "observe") {
    checks.push(
      check(
        "blocking_unknowns",
        task.blocking_unknowns.length > 0,
        "the request is underspecified but blocking_unknowns is empty",
      ),
    );
  }
  checks.push(
    ...checkExpected(
      "recommended_next_step",
      "recommended_next_step",
      task.recommended_next_step,
      e.recommendedNextStep,
    ),
  );
  const scope = task.scope_boundary;
  const catchAll = scope.allowed_paths.filter((p) => CATCH_ALL.has(p.trim()));
  checks.push(
    check(
      "scope_bounded",
      scope.statement.trim().length > 0 && catchAll.length === 0 && scope.allowed_paths.length > 0,
      catchAll.length > 0
        ? `allowed_paths ${catchAll.join(", ")} puts the whole repository in scope`
        : "the scope boundary names no allowed paths",
    ),
  );
  return checks;
}

/**
 * Task scale (docs/origins.md#03-evals: "keep scope tight", "no inflation into broader planning"): a handful of
 * success criteria, a few allowed paths, things explicitly left out, and no planning detour.
 */
export function gradeTaskScale(a: RunArtifacts, limits = { criteria: 4, paths: 4 }): Check[] {
  const task = a.task;
  if (!task) return [check("stays_task_scale", false, "task_artifact.json is missing or invalid")];
  const scope = task.scope_boundary;
  return [
    checkProblems("stays_task_scale", [
      task.success_criteria.length > limits.criteria &&
        `${task.success_criteria.length} success criteria (at most ${limits.criteria} for a task-scale change)`,
      scope.allowed_paths.length > limits.paths &&
        `${scope.allowed_paths.length} allowed paths (at most ${limits.paths})`,
      scope.out_of_scope.length === 0 && "nothing is named out of scope",
      task.task_type === "targeted_improvement" &&
        task.task_details.targeted_improvement?.improvement_goal &&
        /\b(redesign|rewrite|overhaul|refactor|platform|workflow)\b/i.test(
          task.task_details.targeted_improvement.improvement_goal,
        ) &&
        "the improvement goal reads like a redesign, not a bounded delta",
    ]),
  ];
}

/** The framing carries the concrete facts the user gave (values, names), not a paraphrase that lost them. */
export function gradeTaskMentions(a: RunArtifacts, e: ExpectedBehaviour): Check[] {
  if (!a.task || !e.taskMentions) return [];
  const { request: _request, prior_turns: _turns, ...framed } = a.task;
  const text = JSON.stringify(framed).toLowerCase();
  const lost = e.taskMentions.filter((m) => !text.includes(m.toLowerCase()));
  return [
    check(
      "grounded_in_conversation",
      lost.length === 0,
      `the framing lost what the user said: ${lost.join(", ")}`,
    ),
  ];
}

/** What the framer was tempted to include is named out of scope. */
export function gradeOutOfScope(a: RunArtifacts, e: ExpectedBehaviour): Check[] {
  if (!a.task || !e.outOfScope) return [];
  const out = a.task.scope_boundary.out_of_scope.join(" ").toLowerCase();
  const missing = e.outOfScope.filter((m) => !out.includes(m.toLowerCase()));
  return [
    check("scope_excludes_extras", missing.length === 0, `out_of_scope does not name: ${missing.join(", ")}`),
  ];
}

/**
 * Re-framing amends the same task: one task directory, the expected revision, and the earlier
 * revision kept in history/.
 */
export async function gradeTaskRevised(
  a: RunArtifacts,
  e: ExpectedBehaviour,
  taskRoots: string[],
): Promise<Check[]> {
  if (e.taskRevision === undefined) return [];
  const history = a.store ? await a.store.history("task_artifact").catch(() => []) : [];
  return [
    checkProblems("task_revised_in_place", [
      a.task?.revision !== e.taskRevision &&
        `task_artifact is at r${a.task?.revision ?? 0}, expected r${e.taskRevision}`,
      history.length !== e.taskRevision - 1 && `history/ keeps ${history.length} earlier task revision(s)`,
      taskRoots.length !== 1 &&
        `${taskRoots.length} task roots under .devflow/iterate (${taskRoots.join(", ")})`,
    ]),
  ];
}
