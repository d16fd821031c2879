import type { RunState } from "../../src/index.js";
import { check, checkProblems } from "../grade.js";
import type { Check } from "../types.js";
import type { RunArtifacts } from "./run-artifacts.js";

/**
 * Readiness (docs/origins.md#03-evals, iterator supervision): the decision is recorded in iterator_run and cites
 * task and observation revisions that exist on disk and belong together (the cited observation
 * was made against the cited task revision).
 */
export async function gradeReadiness(a: RunArtifacts): Promise<Check[]> {
  const readiness = a.run?.readiness;
  if (!a.run || !readiness)
    return [check("readiness_cites_revisions", false, "iterator_run has no readiness decision")];
  const { task_artifact_revision: t, observation_artifact_revision: o } = readiness.cites;
  const task = await a.store?.readRevision("task_artifact", t).catch(() => null);
  const observation = await a.store?.readRevision("observation_artifact", o).catch(() => null);
  return [
    checkProblems("readiness_cites_revisions", [
      !task && `task_artifact r${t} is not on disk (current or history/)`,
      !observation && `observation_artifact r${o} is not on disk (current or history/)`,
      observation &&
        observation.task_revision !== t &&
        `observation r${o} was made against task r${observation.task_revision}, not the cited r${t}`,
      a.task &&
        t !== a.task.revision &&
        a.run.attempts.length > 0 &&
        `coding relied on task r${t} but the task is at r${a.task.revision}`,
    ]),
  ];
}

/**
 * The coder is only spawned after readiness said ready on a seam devflow saw red, and the
 * run_state history (iterator_run.state_history) and the node events (events.jsonl) agree on it.
 */
export function gradeSpawnDiscipline(a: RunArtifacts): Check[] {
  const run = a.run;
  if (!run) return [check("no_spawn_before_ready", false, "iterator_run.json is missing or invalid")];
  const states = run.state_history.map((s) => s.state);
  const firstCoding = states.indexOf("coding");
  const spawned = firstCoding >= 0 || run.attempts.length > 0 || a.attempts.length > 0;
  if (!spawned) return [check("no_spawn_before_ready", true, "", "the coder was never spawned")];
  const ready = states.indexOf("ready_for_coder");
  const observed = states.indexOf("observing");
  const readyEvent = a.events.findIndex((e) => e.node === "readiness" && e.phase === "end");
  const codeEvent = a.events.findIndex((e) => e.node === "code" && e.phase === "start");
  return [
    checkProblems("no_spawn_before_ready", [
      run.readiness?.status !== "ready" &&
        `readiness is ${run.readiness?.status ?? "missing"}, yet the coder ran`,
      run.readiness?.seam_red_confirmed !== true && "the coder ran without a seam confirmed red on base",
      (ready < 0 || ready > firstCoding) && "state_history reaches coding before ready_for_coder",
      observed >= 0 && ready >= 0 && observed > ready && "ready_for_coder came before observing",
      codeEvent >= 0 &&
        (readyEvent < 0 || readyEvent > codeEvent) &&
        "events.jsonl shows the code node starting before readiness ended",
    ]),
  ];
}

/**
 * run_state transitions: the expected states appear in order in state_history, the final
 * run_state is the terminal verdict's state, and events.jsonl only reports states that the
 * history holds (the durable record and the event log tell one story).
 */
export function gradeRunStates(a: RunArtifacts, expected: RunState[]): Check[] {
  const run = a.run;
  if (!run) return [check("run_state_transitions", false, "iterator_run.json is missing or invalid")];
  const states = run.state_history.map((s) => s.state);
  let at = 0;
  const missing: RunState[] = [];
  for (const state of expected) {
    const found = states.indexOf(state, at);
    if (found < 0) missing.push(state);
    else at = found + 1;
  }
  const last = states.at(-1);
  const eventStates = new Set(a.events.map((e) => e.run_state).filter((s): s is string => s !== null));
  const unknown = [...eventStates].filter((s) => !states.includes(s as RunState));
  return [
    checkProblems("run_state_transitions", [
      missing.length > 0 && `state_history ${states.join(" → ")} lacks, in order: ${missing.join(", ")}`,
      last !== run.run_state && `run_state ${run.run_state} is not the last state_history entry (${last})`,
      run.terminal &&
        run.terminal.verdict !== run.run_state &&
        `terminal ${run.terminal.verdict} but run_state ${run.run_state}`,
      unknown.length > 0 && `events.jsonl reports states the history never had: ${unknown.join(", ")}`,
      a.events.length === 0 && "events.jsonl is empty",
    ]),
  ];
}

/** Every respawn has an explicit reason on the attempt it follows and a needs_respawn transition. */
export function gradeRespawns(a: RunArtifacts): Check[] {
  const run = a.run;
  if (!run) return [check("respawn_explained", false, "iterator_run.json is missing or invalid")];
  const respawned = run.attempts.slice(0, -1);
  const unexplained = respawned.filter((x) => !x.respawn_reason?.trim()).map((x) => x.attempt_id);
  const transitions = run.state_history.filter((s) => s.state === "needs_respawn" && s.reason.trim()).length;
  const lessons = new Set(a.lessons.map((l) => l.attempt_id));
  const noLesson = respawned.filter((x) => !lessons.has(x.attempt_id)).map((x) => x.attempt_id);
  return [
    checkProblems("respawn_explained", [
      unexplained.length > 0 && `no respawn_reason on ${unexplained.join(", ")}`,
      transitions < respawned.length &&
        `${respawned.length} respawn(s) but ${transitions} needs_respawn transition(s)`,
      noLesson.length > 0 && `no lesson in lessons.jsonl for ${noLesson.join(", ")}`,
    ]),
  ];
}

/** Missing truth stops the run before any coding, with a concrete reason (not buried in attempt notes). */
export function gradeStopsBeforeCoding(a: RunArtifacts): Check[] {
  const run = a.run;
  if (!run) return [check("stops_before_coding", false, "iterator_run.json is missing or invalid")];
  const coded = run.state_history.some((s) => s.state === "coding" || s.state === "verifying");
  return [
    checkProblems("stops_before_coding", [
      (coded || run.attempts.length > 0 || a.attempts.length > 0) && "the coder was spawned",
      run.readiness?.status === "ready" && "readiness says ready although the truth is missing",
      !run.readiness && "the readiness decision is not recorded in iterator_run",
    ]),
  ];
}

/** The terminal verdict says why, concretely: not an empty or one-word reason. */
export function gradeTerminalReason(a: RunArtifacts): Check[] {
  const reason = a.run?.terminal?.reason ?? "";
  return [
    check(
      "terminal_reason_concrete",
      reason.trim().split(/\s+/).length >= 5,
      reason ? `terminal reason too thin: ${JSON.stringify(reason)}` : "no terminal verdict recorded",
    ),
  ];
}

/** A coder's success claim on a red seam is rejected: the attempt is recorded as fail and respawned. */
export function gradeRejectsPrematureSuccess(a: RunArtifacts): Check[] {
  const first = a.attempts[0];
  const summary = a.run?.attempts[0];
  const claimed = first?.report?.status === "ok";
  const red = first?.envelopes.seam?.overall_result !== "pass";
  return [
    check(
      "rejects_premature_success",
      claimed && red && summary?.verdict === "fail" && a.attempts.length > 1,
      !first
        ? "no attempt was made"
        : !red
          ? "the first attempt's seam was green: there was no premature claim to reject"
          : `the first attempt was recorded as ${summary?.verdict ?? "nothing"}${a.attempts.length > 1 ? "" : " and never respawned"}`,
    ),
  ];
}
