/**
 * The lies the scenario suite must catch (issue 9, class 10; ADR 0027). Each mutation is a plain
 * source edit: its anchor (the exact text of a function's signature line) must occur exactly once
 * in its file, and is replaced by a wrapper that calls the real function and then lies about the
 * result. Wrapping instead of editing the body keeps the anchor to one line that only a rename or
 * a signature change can break; when that happens the mutation check fails loudly, so it is
 * updated together with the code instead of passing silently.
 */
export interface SourceEdit {
  /** Repo-relative path of the file to edit. */
  file: string;
  /** Text that must occur exactly once in the file. */
  anchor: string;
  replacement: string;
}

export interface Mutation {
  name: string;
  /** What the mutant does, in the report's words. */
  lie: string;
  edits: SourceEdit[];
  /**
   * Scenarios expected to go red under this mutation, run first (`npm run eval:mutants` stops there
   * when one of them is red, ADR 0027 amendment). Only a hint for speed: when none of them goes red
   * the rest of the suite runs, so a stale hint costs time, never a verdict.
   */
  caughtBy: readonly string[];
}

/** `export async function <name>(<params>): <ret> {` → a lying wrapper around `<name>Unmutated`. */
function wrap(file: string, name: string, params: string, ret: string, lie: string): SourceEdit {
  const anchor = `export async function ${name}(${params}): ${ret} {`;
  const arg = params.split(":")[0]?.trim() ?? "input";
  return {
    file,
    anchor,
    replacement: [
      `export async function ${name}(${params}): ${ret} {`,
      `  const real = await ${name}Unmutated(${arg});`,
      `  return ${lie};`,
      "}",
      `async function ${name}Unmutated(${params}): ${ret} {`,
    ].join("\n"),
  };
}

export const MUTATIONS: readonly Mutation[] = [
  {
    name: "seam-verifier-always-green",
    lie: "the seam verifier reports every attempt green",
    edits: [
      wrap(
        "src/verify/seam.ts",
        "runSeamVerifier",
        "input: SeamVerifierInput",
        "Promise<SeamEnvelope>",
        '{ ...real, overall_result: "pass", green_condition_alignment: "aligned" }',
      ),
    ],
    caughtBy: ["coder_near_miss_then_repair_success", "first_pass_fails_but_report_is_honest"],
  },
  {
    name: "red-on-base-always-confirms",
    lie: "the red-on-base check confirms every seam",
    edits: [
      wrap(
        "src/verify/seam.ts",
        "checkSeamRedOnBase",
        "input: SeamBaseCheckInput",
        "Promise<SeamBaseCheck>",
        '{ ...real, ran: true, red: true, message: "seam confirmed red on base" }',
      ),
    ],
    caughtBy: ["observer_fake_repro_not_confirmed", "user_reported_error_not_confirmed"],
  },
  {
    name: "critic-always-met",
    lie: "the critic judges every criterion met",
    edits: [
      wrap(
        "src/verify/critic.ts",
        "runCriticVerifier",
        "input: CriticVerifierInput",
        "Promise<CriticEnvelope>",
        '{ ...real, overall_result: "pass", green_condition_alignment: "aligned" }',
      ),
    ],
    caughtBy: ["critic_rejects_special_cased_fix"],
  },
];

/** The file's text with the edit applied, or why it cannot be (anchor missing or ambiguous). */
export function applyEdit(text: string, edit: SourceEdit): { text: string } | { problem: string } {
  const count = text.split(edit.anchor).length - 1;
  if (count === 0) return { problem: `anchor not found in ${edit.file}: ${edit.anchor}` };
  if (count > 1) return { problem: `anchor occurs ${count} times in ${edit.file}: ${edit.anchor}` };
  return { text: text.replace(edit.anchor, () => edit.replacement) };
}
