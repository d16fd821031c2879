import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { IteratorRun, PromotionHandoff, VerifierEnvelope } from "../src/index.js";
import {
  cassetteOf,
  cleanupRuns,
  coderScriptFile,
  failed,
  regrade,
  runGraded,
  structuredAnswer,
  tamperArtifact,
  taskDirOf,
} from "./sabotage.test-support.js";

/**
 * The artifact-and-loop scenarios, each broken on purpose; its evaluator must name what broke.
 * Post-run tampering first checks that the untouched run passes, so a failure is the tamper's.
 */
afterAll(cleanupRuns);

async function passingRun(name: string) {
  const graded = await runGraded(name);
  expect(graded.evaluation.notes).toEqual([]);
  expect(graded.evaluation.ok).toBe(true);
  return graded.run;
}

describe("framing scenarios", () => {
  it("messy_error_report_with_partial_location: a second task_details type fails shared_task_details", async () => {
    const cassette = await cassetteOf("messy_error_report_with_partial_location");
    const framing = structuredAnswer(cassette, "framer", 0);
    framing.task_details = {
      ...(framing.task_details as object),
      quick_change: { change_summary: "Fix the total", target_surface: "cart badge" },
    };
    const { evaluation } = await runGraded("messy_error_report_with_partial_location", { cassette });
    expect(failed(evaluation)).toEqual(["shared_task_details"]);
  });

  it("tiny_copy_or_behavior_tweak: inflating the tweak into an improvement fails task_type and stays_task_scale", async () => {
    const cassette = await cassetteOf("tiny_copy_or_behavior_tweak");
    const framing = structuredAnswer(cassette, "framer", 0);
    Object.assign(framing, {
      task_type: "targeted_improvement",
      task_details: {
        error_fix: null,
        quick_change: null,
        targeted_improvement: {
          improvement_goal: "Redesign the checkout flow's labels and buttons",
          measurable_signal: "every label reviewed",
        },
      },
      success_criteria: [
        "LABELS.checkout is 'Checkout'",
        "LABELS.empty is reviewed",
        "buttons use the new style",
        "the flow has 3 steps",
      ],
    });
    const { evaluation } = await runGraded("tiny_copy_or_behavior_tweak", { cassette });
    expect(failed(evaluation)).toEqual(["task_type", "observable_success_criteria", "stays_task_scale"]);
  });

  it("underspecified_but_repairable_request: claiming certainty (observe, no unknowns) fails the honesty criteria", async () => {
    const cassette = await cassetteOf("underspecified_but_repairable_request");
    Object.assign(structuredAnswer(cassette, "framer", 0), {
      recommended_next_step: "observe",
      blocking_unknowns: [],
    });
    const { evaluation } = await runGraded("underspecified_but_repairable_request", { cassette });
    expect(failed(evaluation)).toEqual(["blocking_unknowns", "recommended_next_step"]);
  });
});

describe("observation scenarios", () => {
  it("error_confirmed_by_logs: a green seam reported as misaligned fails green_condition_alignment", async () => {
    const run = await passingRun("error_confirmed_by_logs");
    tamperArtifact(
      join(taskDirOf(run), "attempts/attempt-001/verifiers/seam.json"),
      VerifierEnvelope,
      (e) => {
        e.green_condition_alignment = "misaligned";
      },
    );
    const broken = await regrade("error_confirmed_by_logs", run);
    expect(failed(broken)).toEqual(["no_green_claim_without_green_seam", "green_condition_alignment"]);
  });

  it("error_confirmed_by_logs: a seam envelope that says pass while its payload records exit 1 is caught by the payload's facts", async () => {
    const run = await passingRun("error_confirmed_by_logs");
    tamperArtifact(
      join(taskDirOf(run), "attempts/attempt-001/verifiers/seam.json"),
      VerifierEnvelope,
      (e) => {
        if (e.verifier === "seam") e.native_payload.exit_code = 1;
      },
    );
    const broken = await regrade("error_confirmed_by_logs", run);
    expect(failed(broken)).toEqual(["no_green_claim_without_green_seam", "green_condition_alignment"]);
  });

  it("error_confirmed_by_logs: a gate verdict that hides a failing critic fails gate_verdict_recorded_honestly", async () => {
    const run = await passingRun("error_confirmed_by_logs");
    tamperArtifact(join(taskDirOf(run), "iterator_run.json"), IteratorRun, (r) => {
      for (const gate of [r.attempts.at(-1)?.gate, r.terminal?.gate]) {
        const critic = gate?.checks.find((c) => c.verifier === "critic");
        if (critic) critic.overall_result = "fail";
      }
    });
    const broken = await regrade("error_confirmed_by_logs", run);
    expect(failed(broken)).toEqual(["gate_verdict_recorded_honestly"]);
  });

  it("user_reported_error_not_confirmed: an observer claiming a repro that runs green fails no_fake_repro", async () => {
    const cassette = await cassetteOf("user_reported_error_not_confirmed");
    Object.assign(structuredAnswer(cassette, "observer", -1), {
      status: "confirmed",
      verdict: "ready_for_coder",
      failing_seam: {
        description: "Uppercase emails are rejected",
        command: "node --test test/uppercase-email.test.js",
        files: ["test/uppercase-email.test.js"],
      },
      expected_green_condition: "the uppercase test passes",
      repro_steps: ["node --test test/uppercase-email.test.js"],
    });
    const { evaluation } = await runGraded("user_reported_error_not_confirmed", { cassette });
    expect(failed(evaluation)).toEqual(["no_fake_repro"]);
  });

  it("targeted_improvement_red_seam: a seam that runs the whole suite fails seam_narrow", async () => {
    const cassette = await cassetteOf("targeted_improvement_red_seam");
    const findings = structuredAnswer(cassette, "observer", -1);
    findings.failing_seam = {
      description: "The whole suite",
      command: "npm test",
      files: ["test/duplicate-email.test.js"],
    };
    const { evaluation } = await runGraded("targeted_improvement_red_seam", { cassette });
    expect(failed(evaluation)).toEqual(["seam_narrow"]);
  });
});

describe("iterator loop scenarios", () => {
  it("coder_near_miss_then_repair_success: a respawn without its reason fails respawn_explained", async () => {
    const run = await passingRun("coder_near_miss_then_repair_success");
    tamperArtifact(join(taskDirOf(run), "iterator_run.json"), IteratorRun, (r) => {
      const first = r.attempts[0];
      if (first) first.respawn_reason = null;
    });
    const broken = await regrade("coder_near_miss_then_repair_success", run);
    expect(failed(broken)).toEqual(["respawn_explained"]);
  });

  it("missing_truth_blocks_safe_implementation: spawning the coder on a made-up seam fails stops_before_coding", async () => {
    const cassette = await cassetteOf("missing_truth_blocks_safe_implementation");
    Object.assign(structuredAnswer(cassette, "observer", -1), {
      status: "seam_created",
      verdict: "ready_for_coder",
      // A made-up seam devflow's strict base check cannot tell from a repro script (it names a
      // file of the repo and exits 1); `node -e "process.exit(1)"` is now refused by devflow itself.
      failing_seam: { description: "Pretend check", command: "test -f package.json && exit 1", files: [] },
      expected_green_condition: "exits 0",
      repro_steps: ["test -f package.json && exit 1"],
    });
    const { evaluation } = await runGraded("missing_truth_blocks_safe_implementation", { cassette });
    expect(failed(evaluation)).toEqual(expect.arrayContaining(["stops_before_coding", "terminal_verdict"]));
  });

  it("request_outgrows_iterate_during_loop: a lost history revision fails revisions_monotonic and task_revised_in_place", async () => {
    const run = await passingRun("request_outgrows_iterate_during_loop");
    rmSync(join(taskDirOf(run), "history", "task_artifact.r001.json"));
    const broken = await regrade("request_outgrows_iterate_during_loop", run);
    expect(failed(broken)).toEqual(["revisions_monotonic", "task_revised_in_place"]);
  });

  it("reroute_to_insight_after_observation: a handoff to the wrong lane fails promotion_handoff_linked", async () => {
    const run = await passingRun("reroute_to_insight_after_observation");
    tamperArtifact(join(taskDirOf(run), "promotion_handoff.json"), PromotionHandoff, (h) => {
      h.target_lane = "idea";
    });
    const broken = await regrade("reroute_to_insight_after_observation", run);
    expect(failed(broken)).toEqual(["promotion_handoff_linked"]);
  });
});

describe("coder attempt scenarios", () => {
  it("scoped_fix_succeeds_first_pass: an attempt directory not named attempt-001 fails attempt_ids_ordinal", async () => {
    const run = await passingRun("scoped_fix_succeeds_first_pass");
    const attempts = join(taskDirOf(run), "attempts");
    renameSync(join(attempts, "attempt-001"), join(attempts, "attempt-002"));
    const broken = await regrade("scoped_fix_succeeds_first_pass", run);
    expect(failed(broken)).toEqual(expect.arrayContaining(["attempt_ids_ordinal", "attempt_refs_resolve"]));
  });

  it("first_pass_fails_but_report_is_honest: a first attempt that claims success fails the honesty criteria", async () => {
    const boastful = coderScriptFile(`
      import { readFileSync, writeFileSync } from "node:fs";
      const prompt = readFileSync(process.env.DEVFLOW_PROMPT_FILE, "utf8");
      const file = "src/invites.js";
      const source = readFileSync(file, "utf8");
      const original = '  const saved = store.save(invite);\\n  saved.accepted_at = now.toISOString();\\n  return saved;';
      const partial = '  invite.accepted_at = now;\\n  return store.save(invite);';
      const fixed = '  invite.accepted_at = now.toISOString();\\n  return store.save(invite);';
      const repaired = prompt.includes("Known errors from prior attempts");
      writeFileSync(file, source.replace(source.includes(original) ? original : partial, repaired ? fixed : partial));
      console.log(repaired ? "Set accepted_at as an ISO string." : "All done, invites are accepted now.");
    `);
    const { evaluation } = await runGraded("first_pass_fails_but_report_is_honest", {
      coderScript: boastful,
    });
    expect(failed(evaluation)).toEqual(["reports_attempt_honestly", "actionable_blocker_detail"]);
  });

  it("revised_task_before_coding: readiness citing the superseded task revision fails readiness_cites_revisions", async () => {
    const run = await passingRun("revised_task_before_coding");
    tamperArtifact(join(taskDirOf(run), "iterator_run.json"), IteratorRun, (r) => {
      if (r.readiness) r.readiness.cites.task_artifact_revision = 1;
    });
    const broken = await regrade("revised_task_before_coding", run);
    expect(failed(broken)).toEqual(["readiness_cites_revisions"]);
  });
});
