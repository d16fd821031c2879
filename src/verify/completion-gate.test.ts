import { describe, expect, it } from "vitest";
import { envelopeFor } from "../../test/support/verifier-envelopes.js";
import { VerifierEnvelope, type VerifierName } from "../artifacts/schemas/verifier-envelope.js";
import { completionGate } from "./completion-gate.js";

type Result = VerifierEnvelope["overall_result"];
type Alignment = VerifierEnvelope["green_condition_alignment"];

/** A verifier's envelope, parsed through the schema whenever the schema admits the result. */
function env(
  verifier: VerifierName,
  result: Result,
  alignment?: Alignment,
  attempt = "attempt-001",
): VerifierEnvelope {
  const e = envelopeFor(verifier, result, {
    attempt_id: attempt,
    green_condition_alignment: alignment ?? (verifier === "seam" ? "aligned" : "not_applicable"),
  });
  const parsed = VerifierEnvelope.safeParse(e);
  return parsed.success ? parsed.data : e;
}

const allPass = (): VerifierEnvelope[] => [
  env("seam", "pass", "aligned"),
  env("seam_integrity", "pass"),
  env("scope", "pass"),
  env("critic", "pass", "aligned"),
  env("regression", "pass"),
];

function replace(list: VerifierEnvelope[], next: VerifierEnvelope): VerifierEnvelope[] {
  return list.map((e) => (e.verifier === next.verifier ? next : e));
}

const A1 = "attempt-001";

describe("completionGate", () => {
  describe("extra verifiers (ADR 0056)", () => {
    const opts = { attemptId: A1, requireRegression: true, requireExtraVerifiers: true };
    it("passes with a passing extra_verifiers envelope and lists it among the checks", () => {
      const gate = completionGate([...allPass(), env("extra_verifiers", "pass")], opts);
      expect(gate.result).toBe("pass");
      expect(gate.checks).toContainEqual({ verifier: "extra_verifiers", overall_result: "pass" });
    });
    // Regression (module-under-test-exits-zero-when-a-ticket-block-loads-it, ADR 0059): a block's
    // pass was recorded as a plain pass although only its exit code was judged. Fix: the gate's caveat.
    it("says that a pass of the blocks rests on their exit code alone (a caveat of the verdict)", () => {
      const gate = completionGate([...allPass(), env("extra_verifiers", "pass")], opts);
      expect(gate.caveats).toContainEqual({
        verifier: "extra_verifiers",
        caveat: expect.stringMatching(/^judged by exit code only for programs other than node: .*exit 0/),
      });
    });
    it("fails on a failing or errored block, even when every other verifier passed", () => {
      for (const result of ["fail", "error"] as const) {
        const gate = completionGate([...allPass(), env("extra_verifiers", result)], opts);
        expect(gate.result, result).toBe("fail");
        expect(gate.reasons[0], result).toMatch(/^extra_verifiers: /);
      }
    });
    it("fails when a task with extra verifiers has no envelope for them; a task without needs none", () => {
      const missing = completionGate(allPass(), opts);
      expect(missing.reasons).toEqual(["extra_verifiers: no result (the verifier did not run)"]);
      expect(completionGate(allPass(), { ...opts, requireExtraVerifiers: false }).result).toBe("pass");
    });
    it("the schema refuses a skipped extra_verifiers envelope and one whose runs disagree with its result", () => {
      expect(VerifierEnvelope.safeParse(envelopeFor("extra_verifiers", "skipped")).success).toBe(false);
      const lying = { ...envelopeFor("extra_verifiers", "fail"), overall_result: "pass" };
      expect(VerifierEnvelope.safeParse(lying).success).toBe(false);
    });
  });

  // Regression (a seam test whose imports esbuild could not read, stop 28): its helpers were not
  // fingerprinted, yet a pass said nothing of it. Fix: the contract carries what could not be
  // fingerprinted, the seam_integrity envelope names it, and the gate makes it a caveat.
  it("names seam test code that could not be fingerprinted as a caveat of a pass", () => {
    const integrity = env("seam_integrity", "pass");
    const unprotected = ["test/odd.test.js (its imports could not be read)"];
    const named = VerifierEnvelope.parse({
      ...integrity,
      native_payload: { ...integrity.native_payload, unprotected },
    });
    const gate = completionGate(replace(allPass(), named), { attemptId: A1, requireRegression: true });
    expect(gate.result).toBe("pass");
    expect(gate.caveats).toEqual([
      {
        verifier: "seam_integrity",
        caveat:
          "not fingerprinted, so edits to it were not checked: test/odd.test.js (its imports could not be read)",
      },
    ]);
    expect(completionGate(allPass(), { attemptId: A1, requireRegression: true }).caveats).toEqual([]);
  });

  // Review of stop 35 (second): a test data file the scope names exactly is not fingerprinted, and a
  // coder rewrote it to expect the bug; the run completed with no caveat. Fix (ADR 0074): the
  // seam_integrity envelope names scope-named evidence the attempt changed, the gate a caveat.
  // Mutation: the caveat's push removed.
  it("names seam evidence the scope names and the attempt changed as a caveat of a pass", () => {
    const integrity = env("seam_integrity", "pass");
    const named = VerifierEnvelope.parse({
      ...integrity,
      native_payload: { ...integrity.native_payload, scope_named_changed: ["test/cases/spaces.json"] },
    });
    const gate = completionGate(replace(allPass(), named), { attemptId: A1, requireRegression: true });
    expect(gate.result).toBe("pass");
    expect(gate.caveats).toEqual([
      {
        verifier: "seam_integrity",
        caveat:
          "the seam's verdict rests on test code or data the scope names and the attempt changed, so it shows the code meets them as changed: test/cases/spaces.json",
      },
    ]);
  });

  const withScope = (payload: Record<string, unknown>) =>
    replace(allPass(), {
      ...env("scope", "pass"),
      native_payload: { allowed_paths: [], out_of_scope: [], restricted: false, ...payload },
    } as unknown as VerifierEnvelope);
  const EMPTY =
    "empty change: no tracked file differs from base outside the seam's own files, so there is nothing to complete";

  it("never passes an empty change, whatever the verifiers say", () => {
    const gate = completionGate(withScope({ changed_files: [] }), { attemptId: A1, requireRegression: true });
    expect(gate.result).toBe("fail");
    expect(gate.reasons).toEqual([EMPTY]);
  });

  it("judges emptiness against base: only seam files changed is empty, an earlier attempt's fix is not", () => {
    // The attempt touched files, but the tree equals base apart from the Observer's seam test.
    const onlySeam = completionGate(withScope({ changed_files: ["x.js"], changed_since_base: [] }), {
      attemptId: A1,
      requireRegression: true,
    });
    expect(onlySeam.reasons).toEqual([EMPTY]);
    // Nothing changed since the seam tree (after a re-plan), but the fix from attempt-001 is there.
    const kept = completionGate(withScope({ changed_files: [], changed_since_base: ["src/a.js"] }), {
      attemptId: A1,
      requireRegression: true,
    });
    expect(kept.result).toBe("pass");
  });

  it("passes a seam judged by exit code only with a caveat saying so", () => {
    const seam = env("seam", "pass", "aligned");
    const byExit = {
      ...seam,
      native_payload: { ...(seam.native_payload as object), evidence: "exit_code" },
    } as VerifierEnvelope;
    const gate = completionGate(replace(allPass(), byExit), { attemptId: A1, requireRegression: true });
    expect(gate.result).toBe("pass");
    // An exit-code seam has no runner to add a canary to (ADR 0028): the caveat says that too.
    expect(gate.caveats).toEqual([
      {
        verifier: "seam",
        caveat:
          "seam identified by exit code only; no seam canary ran, so a neutered assertion library or a forged runner result would go unnoticed",
      },
    ]);
  });

  it("passes a named seam whose canary could not be placed with a caveat naming why", () => {
    const seam = env("seam", "pass", "aligned");
    const noCanary = {
      ...seam,
      native_payload: {
        ...(seam.native_payload as object),
        evidence: "named_tests",
        canary: { status: "not_run", reason: "no seam test file to place a canary next to" },
      },
    } as VerifierEnvelope;
    const gate = completionGate(replace(allPass(), noCanary), { attemptId: A1, requireRegression: true });
    expect(gate.result).toBe("pass");
    expect(gate.caveats).toEqual([
      {
        verifier: "seam",
        caveat:
          "no seam canary ran, so a neutered assertion library or a forged runner result would go unnoticed (no seam test file to place a canary next to)",
      },
    ]);
  });

  // ADR 0072: a seam whose runs could not be traced stood on the shape checks only; a pass says so.
  it("passes a seam whose runs could not be traced with a caveat naming why, and a traced one without", () => {
    const seam = env("seam", "pass", "aligned");
    const withTrace = (load_trace: object) =>
      ({ ...seam, native_payload: { ...(seam.native_payload as object), load_trace } }) as VerifierEnvelope;
    const untraced = completionGate(
      replace(allPass(), withTrace({ status: "unavailable", reason: "strace is not installed" })),
      { attemptId: A1, requireRegression: true },
    );
    expect(untraced.result).toBe("pass");
    expect(untraced.caveats).toEqual([
      {
        verifier: "seam",
        caveat:
          "the seam's runs were not traced, so which changed test files and data they read was judged from the shapes of their source only (strace is not installed)",
      },
    ]);
    for (const status of ["traced", "not_traced"])
      expect(
        completionGate(replace(allPass(), withTrace({ status, reason: null })), {
          attemptId: A1,
          requireRegression: true,
        }).caveats,
      ).toEqual([]);
  });

  it("passes when all five verifiers pass and the seam is aligned", () => {
    const gate = completionGate(allPass(), { attemptId: A1, requireRegression: true });
    expect(gate).toEqual({
      result: "pass",
      attempt_id: A1,
      reasons: [],
      caveats: [],
      checks: ["seam", "seam_integrity", "scope", "critic", "regression"].map((verifier) => ({
        verifier,
        overall_result: "pass",
      })),
    });
  });

  const names: VerifierName[] = ["seam", "seam_integrity", "scope", "critic", "regression"];
  const outcomes: Result[] = ["fail", "error"];
  for (const name of names) {
    for (const outcome of outcomes) {
      it(`fails when ${name} is ${outcome}, naming it`, () => {
        const gate = completionGate(replace(allPass(), env(name, outcome, "unknown")), {
          attemptId: A1,
          requireRegression: false,
        });
        expect(gate.result).toBe("fail");
        expect(gate.reasons).toHaveLength(1);
        expect(gate.reasons[0]).toMatch(new RegExp(`^${name}: `));
        expect(gate.reasons[0]).toContain(`${name} said ${outcome}`);
      });
    }
    it(`fails when ${name} did not run at all`, () => {
      const gate = completionGate(
        allPass().filter((e) => e.verifier !== name),
        { attemptId: A1, requireRegression: false },
      );
      expect(gate.result).toBe("fail");
      expect(gate.reasons).toEqual([`${name}: no result (the verifier did not run)`]);
    });
  }

  it("treats an error as a failure and says so", () => {
    const gate = completionGate(replace(allPass(), env("critic", "error", "unknown")), {
      attemptId: A1,
      requireRegression: false,
    });
    expect(gate.reasons[0]).toContain("could not run, which counts as a failure");
  });

  for (const alignment of ["misaligned", "unknown", "not_applicable"] as const) {
    it(`refuses a passing seam whose alignment is ${alignment}`, () => {
      const gate = completionGate(replace(allPass(), env("seam", "pass", alignment)), {
        attemptId: A1,
        requireRegression: true,
      });
      expect(gate.result).toBe("fail");
      expect(gate.reasons[0]).toContain(`"${alignment}"`);
    });
  }

  it("accepts a skipped regression when none is required, with a caveat", () => {
    const gate = completionGate(replace(allPass(), env("regression", "skipped")), {
      attemptId: A1,
      requireRegression: false,
    });
    expect(gate.result).toBe("pass");
    expect(gate.caveats).toHaveLength(1);
    expect(gate.caveats[0]?.verifier).toBe("regression");
    expect(gate.caveats[0]?.caveat).toMatch(/^not run/);
  });

  it("refuses a skipped regression when one is required", () => {
    const gate = completionGate(replace(allPass(), env("regression", "skipped")), {
      attemptId: A1,
      requireRegression: true,
    });
    expect(gate.result).toBe("fail");
    expect(gate.reasons[0]).toContain("a regression run is required");
  });

  for (const name of ["seam", "seam_integrity", "scope", "critic"] as const) {
    it(`refuses a skipped ${name} even when regression is optional`, () => {
      const gate = completionGate(replace(allPass(), env(name, "skipped")), {
        attemptId: A1,
        requireRegression: false,
      });
      expect(gate.result).toBe("fail");
      expect(gate.reasons[0]).toContain("not allowed");
    });
  }

  it("fails on any failing duplicate of a verifier", () => {
    const gate = completionGate([...allPass(), env("scope", "fail")], {
      attemptId: A1,
      requireRegression: true,
    });
    expect(gate.result).toBe("fail");
    expect(gate.reasons).toEqual(["scope: failed (scope said fail)"]);
  });

  it("refuses to judge envelopes from different attempts together", () => {
    const mixed = replace(allPass(), env("critic", "pass", "aligned", "attempt-002"));
    const gate = completionGate(mixed, { attemptId: A1, requireRegression: true });
    expect(gate.result).toBe("fail");
    expect(gate.reasons[0]).toContain("attempt-001, attempt-002");
  });

  it("lists every broken condition, not only the first", () => {
    const gate = completionGate([env("seam", "fail", "misaligned"), env("critic", "fail", "misaligned")], {
      attemptId: A1,
      requireRegression: true,
    });
    expect(gate.reasons.map((r) => r.split(":")[0])).toEqual([
      "seam",
      "seam_integrity",
      "scope",
      "critic",
      "regression",
    ]);
  });

  it("fails on no envelopes at all", () => {
    expect(completionGate([], { attemptId: A1, requireRegression: false }).result).toBe("fail");
  });

  it("refuses envelopes of another attempt than the one it judges", () => {
    const other = allPass().map((e) => ({ ...e, attempt_id: "attempt-002" }));
    const gate = completionGate(other, { attemptId: A1, requireRegression: true });
    expect(gate.result).toBe("fail");
    expect(gate.reasons[0]).toContain("attempt-001, attempt-002");
  });

  // Review of stop 35: a configuration the scope names may change; what it does besides naming setup
  // files is then the critic's to see, and a completed verdict says so. Mutation: the caveat removed.
  it("names the test configuration files the attempt changed as a caveat, and nothing for others", () => {
    const scopeWith = (changed: string[]) => {
      const scope = env("scope", "pass");
      if (scope.verifier !== "scope") throw new Error("not a scope envelope");
      return { ...scope, native_payload: { ...scope.native_payload, changed_since_base: changed } };
    };
    const gate = completionGate(
      replace(
        allPass(),
        scopeWith([
          "src/slug.js",
          "package.json",
          "web/vitest.config.ts",
          "pytest.ini",
          "tsconfig.base.json",
        ]),
      ),
      { attemptId: A1, requireRegression: true },
    );
    expect(gate.result).toBe("pass");
    expect(gate.caveats).toEqual([
      {
        verifier: "scope",
        caveat:
          "the attempt changed test configuration: the seam was judged with base's copy of it, and the suite (when there is a test command) had to pass with the attempt's copy and with base's; what the attempt's copy does is judged by the critic only: package.json, web/vitest.config.ts, pytest.ini, tsconfig.base.json",
      },
    ]);
    const plain = completionGate(
      replace(allPass(), scopeWith(["src/slug.js", "src/package-json.js", "src/tsconfig.js"])),
      {
        attemptId: A1,
        requireRegression: true,
      },
    );
    expect(plain.caveats).toEqual([]);
  });
});
