import { z } from "zod";
import { AttemptId } from "./common.js";
import { OverallResult, VerifierName } from "./verifier-envelope.js";

/** What one verifier said, as the gate read it. */
export const GateCheck = z.object({ verifier: VerifierName, overall_result: OverallResult });
export type GateCheck = z.infer<typeof GateCheck>;

/** Something a passing gate did not check (e.g. regression skipped: no test command). */
export const GateCaveat = z.object({ verifier: VerifierName, caveat: z.string().min(1) });
export type GateCaveat = z.infer<typeof GateCaveat>;

const judged = {
  attempt_id: AttemptId,
  checks: z.array(GateCheck).describe("Every verifier result the gate read, in gate order"),
  caveats: z.array(GateCaveat).describe("What was skipped or not checked; empty when every check ran"),
};

/**
 * The completion gate's verdict on one attempt (verify/completion-gate.ts). It is written once and
 * carried unchanged into iterator_run.json, the commit message, the CLI summary, --json and the
 * evals, so no layer re-derives what passed or what was left unchecked.
 */
export const GateVerdict = z.discriminatedUnion("result", [
  z.object({
    result: z.literal("pass"),
    ...judged,
    reasons: z.array(z.string()).max(0).describe("Always empty on a pass"),
  }),
  z.object({
    result: z.literal("fail"),
    ...judged,
    reasons: z.array(z.string()).min(1).describe("Why the gate refused, one line per broken condition"),
  }),
]);
export type GateVerdict = z.infer<typeof GateVerdict>;
