import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PromotionHandoff } from "../src/index.js";
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
 * Every evaluator must be able to fail: each test breaks one scenario on purpose (a wrong answer
 * in its cassette, a coder that misbehaves, an artifact removed or rewritten after the run) and
 * asserts that the scenario's own evaluator names the broken criterion.
 */
afterAll(cleanupRuns);

describe("arm-level evaluators fail when the arm misbehaves", () => {
  it("devin_iterate_routing: a broad feature routed to iterate fails routes_feature_to_idea", async () => {
    const cassette = await cassetteOf("devin_iterate_routing");
    Object.assign(structuredAnswer(cassette, "router", 2), { route: "iterate" });
    const { evaluation } = await runGraded("devin_iterate_routing", { cassette });
    expect(evaluation.ok).toBe(false);
    expect(failed(evaluation)).toEqual(["routes_feature_to_idea"]);
  });

  it("iterate_error_fix: a fix request routed to insight never reaches the lane", async () => {
    const cassette = await cassetteOf("iterate_error_fix");
    // The last router answer is the request's (the scenario's prior turn is routed first).
    Object.assign(structuredAnswer(cassette, "router", -1), { route: "insight" });
    const { run, evaluation } = await runGraded("iterate_error_fix", { cassette });
    expect(run.taskDir).toBeNull();
    expect(run.routes.find((r) => r.id === "request")?.decision?.route).toBe("insight");
    expect(failed(evaluation)).toEqual(
      expect.arrayContaining(["routes_to_iterate", "artifacts_valid", "terminal_verdict"]),
    );
  });

  it("iterate_quick_change: a coder that also edits an unrelated file fails stays_in_scope", async () => {
    const drift = coderScriptFile(`
      import { readFileSync, writeFileSync } from "node:fs";
      const labels = "src/labels.js";
      writeFileSync(labels, readFileSync(labels, "utf8").replace('empty: "No items",', 'empty: "Your cart is empty",'));
      const cart = "src/cart.js";
      writeFileSync(cart, "// Tidied while I was here.\\n" + readFileSync(cart, "utf8"));
      console.log("Changed the copy and tidied src/cart.js.");
    `);
    const { evaluation } = await runGraded("iterate_quick_change", { coderScript: drift });
    expect(failed(evaluation)).toContain("stays_in_scope");
    expect(evaluation.ok).toBe(false);
  });

  it("iterate_to_insight_reroute: a missing promotion_handoff.json fails promotion_handoff_linked", async () => {
    const { run, evaluation } = await runGraded("iterate_to_insight_reroute");
    expect(evaluation.notes).toEqual([]);
    expect(evaluation.ok).toBe(true);
    rmSync(join(taskDirOf(run), "promotion_handoff.json"));
    const broken = await regrade("iterate_to_insight_reroute", run);
    expect(failed(broken)).toEqual(["promotion_handoff_linked", "downstream_record_linked"]);
  });

  it("iterate_to_insight_reroute: an insight lane that fails after the reroute leaves no downstream record", async () => {
    const cassette = await cassetteOf("iterate_to_insight_reroute");
    delete cassette.calls.insight;
    const { run, evaluation } = await runGraded("iterate_to_insight_reroute", { cassette });
    expect(run.error).toMatch(/insight/);
    expect(failed(evaluation)).toEqual(["run_finished", "downstream_record_linked"]);
    expect(evaluation.notes.join("\n")).toMatch(/no downstream_ref: the insight lane never picked it up/);
  });

  it("iterate_to_idea_promotion: a downstream_ref whose idea_brief.json is missing fails downstream_record_linked", async () => {
    const { run, evaluation } = await runGraded("iterate_to_idea_promotion");
    expect(evaluation.ok).toBe(true);
    const handoff = PromotionHandoff.parse(
      JSON.parse(readFileSync(join(taskDirOf(run), "promotion_handoff.json"), "utf8")),
    );
    expect(handoff.downstream_ref).toMatch(/./);
    const ref = handoff.downstream_ref ?? "";
    rmSync(join(run.repo ?? "", ".devflow", "idea", ref), { recursive: true });
    const broken = await regrade("iterate_to_idea_promotion", run);
    expect(failed(broken)).toEqual(["downstream_record_linked"]);
    expect(broken.notes.join("\n")).toContain(join(".devflow", "idea", ref, "idea_brief.json"));
  });

  it("iterate_to_idea_promotion: a handoff citing a task revision that never existed fails promotion_handoff_linked", async () => {
    const { run, evaluation } = await runGraded("iterate_to_idea_promotion");
    expect(evaluation.ok).toBe(true);
    tamperArtifact(join(taskDirOf(run), "promotion_handoff.json"), PromotionHandoff, (h) => {
      h.source_refs.task_artifact.revision = 7;
    });
    const broken = await regrade("iterate_to_idea_promotion", run);
    expect(failed(broken)).toEqual(["promotion_handoff_linked"]);
    expect(broken.notes.join("\n")).toMatch(/task_artifact r7 does not exist/);
  });
});

describe("subagent evaluators fail when the agent misbehaves", () => {
  it("framer_task_framing: vague success criteria fail observable_success_criteria", async () => {
    const cassette = await cassetteOf("framer_task_framing");
    Object.assign(structuredAnswer(cassette, "framer", 0), { success_criteria: ["the import works better"] });
    const { evaluation } = await runGraded("framer_task_framing", { cassette });
    expect(failed(evaluation)).toEqual(["observable_success_criteria"]);
  });

  it("framer_scope_boundary: a whole-repo scope with nothing left out fails the scope criteria", async () => {
    const cassette = await cassetteOf("framer_scope_boundary");
    const framing = structuredAnswer(cassette, "framer", 0);
    framing.scope_boundary = {
      statement: "Fix the import and rewrite the parser.",
      allowed_paths: ["**"],
      out_of_scope: [],
    };
    const { evaluation } = await runGraded("framer_scope_boundary", { cassette });
    expect(failed(evaluation)).toEqual(["scope_bounded", "scope_excludes_extras", "stays_task_scale"]);
  });

  it("observer_evidence_seam: invented line numbers and no log evidence fail evidence_grounded and log_evidence", async () => {
    const cassette = await cassetteOf("observer_evidence_seam");
    const findings = structuredAnswer(cassette, "observer", -1);
    findings.evidence = [
      { claim: "acceptInvite calls save too early", refs: [{ kind: "file", ref: "src/invites.js:999" }] },
      {
        claim: "The store validates accepted_at",
        refs: [{ kind: "file", ref: "src/store/invite-repository.ts:12" }],
      },
    ];
    const { evaluation } = await runGraded("observer_evidence_seam", { cassette });
    expect(failed(evaluation)).toEqual(["evidence_grounded", "log_evidence"]);
    expect(evaluation.notes.join("\n")).toContain("src/invites.js:999");
  });

  it("observer_repro_creation: a 'repro' that passes on base is caught as a fake repro", async () => {
    const cassette = await cassetteOf("observer_repro_creation");
    Object.assign(structuredAnswer(cassette, "observer", -1), {
      failing_seam: {
        description: "The cart tests",
        command: "node --test test/cart.test.js",
        files: ["test/cart.test.js"],
      },
    });
    const { evaluation } = await runGraded("observer_repro_creation", { cassette });
    expect(failed(evaluation)).toEqual(
      expect.arrayContaining([
        "no_fake_repro",
        "seam_red_on_base",
        "observation_status",
        "repro_is_new_test",
      ]),
    );
  });

  it("coder_bounded_fix: a coder that edits the failing test fails seam_untouched and implements_targeted_fix", async () => {
    const cheat = coderScriptFile(`
      import { writeFileSync } from "node:fs";
      writeFileSync("test/accept-invite.test.js", 'import { test } from "node:test";\\ntest("ok", () => {});\\n');
      console.log("Fixed! All tests pass now.");
    `);
    const { evaluation } = await runGraded("coder_bounded_fix", { coderScript: cheat });
    expect(failed(evaluation)).toEqual(
      expect.arrayContaining(["seam_untouched", "implements_targeted_fix", "node_outcome"]),
    );
  });

  it("coder_artifact_alignment: a change outside the observed seam fails aligned_to_observation", async () => {
    const elsewhere = coderScriptFile(`
      import { writeFileSync } from "node:fs";
      writeFileSync("src/email-utils.js", "export const tidy = (s) => s.trim();\\n");
      console.log("Added an email helper module.");
    `);
    const { evaluation } = await runGraded("coder_artifact_alignment", { coderScript: elsewhere });
    expect(failed(evaluation)).toEqual(
      expect.arrayContaining(["aligned_to_observation", "implements_targeted_fix", "stays_in_scope"]),
    );
  });
});
