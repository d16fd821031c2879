import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { EXTRA_VERIFIERS_EXIT_CODE_CAVEAT } from "../artifacts/schemas/extra-verifier.js";
import type { VerificationBlockResult } from "../artifacts/schemas/ticket.js";
import { type ExtraVerifier, VerifierEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import type { FencedBlock } from "./verification-blocks.js";

/** The extra verifier a `## Verification` block becomes: named by its line, so every record can point at it. */
export function blockVerifiers(blocks: readonly FencedBlock[]): ExtraVerifier[] {
  return blocks.map((block) => ({ name: blockName(block), script: block.code }));
}

const blockName = (block: FencedBlock): string => `Verification block at line ${block.line}`;

/**
 * What each block came to, for the ticket's terminal record: its run in the last attempt of the task
 * that ran the extra verifiers (the attempt the verdict stands on), or `not_run` with why.
 */
export async function verificationResults(
  blocks: readonly FencedBlock[],
  artifactDir: string | null,
  notRunReason = "the run ended before verify ran the blocks",
): Promise<VerificationBlockResult[]> {
  const envelope = artifactDir ? await lastExtraVerifiers(artifactDir) : null;
  return blocks.map((block) => {
    const run =
      envelope?.verifier === "extra_verifiers"
        ? envelope.native_payload.runs.find((r) => r.name === blockName(block))
        : undefined;
    if (!run || !envelope)
      return {
        line: block.line,
        code: block.code,
        status: "not_run",
        attempt_id: null,
        exit_code: null,
        reason: notRunReason,
      };
    // A pass says what it rests on (ADR 0059): an exit code, and which of its programs ran as on base.
    const fromBase = (run.from_base ?? []).filter((f) => f.changed).map((f) => f.path);
    const reason =
      run.result === "pass"
        ? `passed, ${EXTRA_VERIFIERS_EXIT_CODE_CAVEAT}${fromBase.length > 0 ? `; ran ${fromBase.join(", ")} as on base (the attempt had changed it)` : ""}`
        : (run.failure ?? `exit ${run.exit_code ?? "killed"}: ${run.output_excerpt.trim().slice(-400)}`);
    return {
      line: block.line,
      code: block.code,
      status: run.result,
      attempt_id: envelope.attempt_id,
      exit_code: run.exit_code,
      reason,
    };
  });
}

/** The extra_verifiers envelope of the latest attempt that has one (attempt ids sort by number). */
async function lastExtraVerifiers(artifactDir: string): Promise<VerifierEnvelope | null> {
  const attempts = (await readdir(join(artifactDir, "attempts")).catch(() => [] as string[]))
    .filter((name) => /^attempt-\d+$/.test(name))
    .sort()
    .reverse();
  for (const attempt of attempts) {
    const text = await readFile(
      join(artifactDir, "attempts", attempt, "verifiers", "extra_verifiers.json"),
      "utf8",
    ).catch(() => null);
    if (text === null) continue;
    const parsed = VerifierEnvelope.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  }
  return null;
}
