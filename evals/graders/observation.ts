import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ExpectedBehaviour } from "../../scenarios/scenario.js";
import { check, checkExpected } from "../grade.js";
import type { Check } from "../types.js";
import type { RunArtifacts } from "./run-artifacts.js";

/** Commands that run a project's whole suite: a seam must be narrower than that. */
const WHOLE_SUITE =
  /^(npm (run )?test|yarn test|pnpm test|node --test|make test|pytest|python3? -m pytest|go test \.\/\.\.\.|cargo test)\s*$/;
const MAX_SEAM_FILES = 3;

export interface ObservationGradeOptions {
  /** Where evidence file refs are resolved (the task worktree). */
  worktree: string | null;
  /** error_confirmed_by_logs: the evidence must cite the user's log. */
  requireLogEvidence?: boolean;
}

/**
 * Observation honesty (docs/origins.md#03-evals, observation): a claimed repro is one devflow itself saw red
 * on base, evidence cites files and lines that exist, a seam comes with repro steps and an explicit
 * green condition, it is narrow, and missing truth turns into questions rather than invented proof.
 */
export function gradeObservation(
  a: RunArtifacts,
  e: ExpectedBehaviour,
  opts: ObservationGradeOptions,
): Check[] {
  const o = a.observation;
  if (!o) return [check("observation_present", false, "observation_artifact.json is missing or invalid")];
  const checks: Check[] = [check("observation_present", true, "")];
  if (e.observationStatus) {
    checks.push(
      check(
        "observation_status",
        e.observationStatus.includes(o.status),
        `status is ${o.status}, expected ${e.observationStatus.join(" or ")}`,
      ),
    );
  }
  checks.push(...checkExpected("observation_verdict", "verdict", o.verdict, e.observationVerdict));

  const claimedRepro =
    o.observer_claimed_status === "confirmed" || o.observer_claimed_status === "seam_created";
  checks.push(
    check(
      "no_fake_repro",
      (!claimedRepro || o.seam_check?.red === true) &&
        (o.status === "confirmed" || o.status === "seam_created" || o.seam_check?.red !== true),
      claimedRepro
        ? `the observer claimed ${o.observer_claimed_status}, but devflow's own run of the seam on base ${o.seam_check ? `exited ${o.seam_check.exit_code}` : "never happened"}`
        : `status ${o.status} while devflow saw the seam red on base`,
    ),
  );

  const unfounded = unfoundedRefs(o.evidence, opts.worktree);
  const reproStatus = o.status === "confirmed" || o.status === "seam_created";
  checks.push(
    check(
      "evidence_grounded",
      unfounded.length === 0 &&
        (!reproStatus || (o.evidence.length > 0 && o.evidence.every((x) => x.refs.length > 0))),
      unfounded.length > 0
        ? `evidence cites what does not exist: ${unfounded.join(", ")}`
        : `status ${o.status} needs evidence with refs for every claim`,
    ),
  );
  if (opts.requireLogEvidence) {
    checks.push(
      check(
        "log_evidence",
        o.evidence.some((x) => x.refs.some((r) => r.kind === "log")),
        "the user's log is not cited as evidence (no ref of kind log)",
      ),
    );
  }
  if (reproStatus) {
    checks.push(
      check(
        "repro_steps",
        o.repro_steps.length > 0,
        "a confirmed problem needs repro steps another agent can run",
      ),
    );
  }
  if (o.failing_seam) {
    const seam = o.failing_seam;
    checks.push(
      check(
        "green_condition_explicit",
        (o.expected_green_condition ?? "").trim().length > 0,
        "the failing seam has no expected green condition",
      ),
    );
    const missing = seam.files.filter((f) => !opts.worktree || !existsSync(join(opts.worktree, f)));
    checks.push(
      check(
        "seam_narrow",
        !WHOLE_SUITE.test(seam.command.trim()) && seam.files.length <= MAX_SEAM_FILES && missing.length === 0,
        WHOLE_SUITE.test(seam.command.trim())
          ? `the seam \`${seam.command}\` runs the whole suite, not one narrow check`
          : missing.length > 0
            ? `seam files missing from the worktree: ${missing.join(", ")}`
            : `the seam spans ${seam.files.length} files (at most ${MAX_SEAM_FILES})`,
      ),
    );
  }
  if (o.verdict === "needs_more_context") {
    checks.push(
      check("asks_for_context", o.questions.length > 0, "needs_more_context without a single question"),
    );
  }
  return checks;
}

/** File refs (`path` or `path:line`) that do not exist in the worktree, or whose line is past the end. */
function unfoundedRefs(
  evidence: { refs: { kind: string; ref: string }[] }[],
  worktree: string | null,
): string[] {
  if (!worktree) return [];
  const bad: string[] = [];
  for (const ref of evidence.flatMap((x) => x.refs)) {
    if (ref.kind !== "file") continue;
    const match = /^(.*?)(?::(\d+))?(?::\d+)?$/.exec(ref.ref.trim());
    const path = match?.[1] ?? ref.ref;
    const file = join(worktree, path);
    if (!existsSync(file) || !statSync(file).isFile()) {
      bad.push(ref.ref);
      continue;
    }
    const line = match?.[2] ? Number(match[2]) : null;
    if (line !== null && line > readFileSync(file, "utf8").split("\n").length) bad.push(ref.ref);
  }
  return bad;
}

/** devflow itself ran the seam on the untouched base and saw it fail. */
export function gradeSeamRedOnBase(a: RunArtifacts): Check[] {
  const seamCheck = a.observation?.seam_check;
  return [
    check(
      "seam_red_on_base",
      seamCheck?.red === true,
      seamCheck
        ? `devflow's run of the seam on base exited ${seamCheck.exit_code} (ran: ${seamCheck.ran})`
        : "the seam was never checked on base",
    ),
  ];
}

/** The seam is a repro the Observer added: its files are new (not in the fixture) and exist in the worktree. */
export function gradeReproIsNew(a: RunArtifacts, worktree: string | null, fixtureDir: string): Check[] {
  const files = a.observation?.failing_seam?.files ?? [];
  const old = files.filter((f) => existsSync(join(fixtureDir, f)));
  const absent = files.filter((f) => !worktree || !existsSync(join(worktree, f)));
  return [
    check(
      "repro_is_new_test",
      files.length > 0 && old.length === 0 && absent.length === 0,
      files.length === 0
        ? "the seam has no files: no repro was written"
        : old.length > 0
          ? `the seam reuses existing files (${old.join(", ")}) instead of a new repro`
          : `seam files missing from the worktree: ${absent.join(", ")}`,
    ),
  ];
}
