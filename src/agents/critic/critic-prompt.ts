import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { ObservationArtifact } from "../../artifacts/schemas/observation-artifact.js";
import type { TaskArtifact } from "../../artifacts/schemas/task-artifact.js";
import type { SeamEnvelope } from "../../artifacts/schemas/verifier-envelope.js";
import { nameList } from "../../util/markdown.js";
import { fillPrompt, loadPrompt } from "../../util/prompts.js";
import { redactSecrets, secretsFromEnv } from "../../util/redact.js";
import { excerpt } from "../../util/truncate.js";
import { budgetDiff } from "./diff-budget.js";

/** Budgets for what the critic sees; the full artifacts are referenced by path, never inlined. */
export const CRITIC_LIMITS = {
  diffBytes: 12 * 1024,
  coderMessageBytes: 2 * 1024,
  seamOutputBytes: 2 * 1024,
  changedFileNames: 200,
} as const;

export interface CriticPromptInput {
  task: TaskArtifact;
  observation: ObservationArtifact;
  /** The attempt's full `git diff` against base. */
  diffPatch: string;
  /** Where the full diff is on disk (attempts/attempt-NNN/diff.patch). */
  diffPath: string;
  /** devflow's own seam run for this attempt; null when it has none. */
  seamEnvelope: SeamEnvelope | null;
  coderFinalMessage: string;
  /** The coder's full transcript, named (never inlined) as evidence. */
  coderTranscriptPath?: string;
}

export interface CriticPrompt {
  /** The filled system prompt (prompt.md) and the user message (input.md). */
  system: string;
  user: string;
  messages: BaseMessage[];
  /** UTF-8 bytes of all message contents: what this design costs per review. */
  bytes: number;
  diff: { shownBytes: number; totalBytes: number; files: string[]; truncatedFiles: string[] };
  evidenceRefs: string[];
}

/** The critic's messages: the task in the system prompt, bounded evidence in the user message. */
export function buildCriticPrompt(input: CriticPromptInput): CriticPrompt {
  const { task, observation } = input;
  const seam = observation.failing_seam;
  const system = fillPrompt(loadPrompt("critic"), {
    title: task.title,
    task_type: task.task_type,
    current_behavior: task.current_behavior,
    desired_behavior: task.desired_behavior,
    success_criteria: task.success_criteria.map((c, i) => `${i + 1}. ${c}`).join("\n"),
    scope_statement: task.scope_boundary.statement,
    allowed_paths: listOrNone(task.scope_boundary.allowed_paths, "(not restricted by path)"),
    out_of_scope: listOrNone(task.scope_boundary.out_of_scope, "(nothing listed)"),
    seam_description: seam?.description ?? "(no failing seam was recorded)",
    seam_command: seam?.command ?? "(none)",
    green_condition: observation.expected_green_condition ?? "(not stated)",
  });

  // Prompts are recorded in cassettes: a key the coder pasted into the code must not travel on.
  const secrets = secretsFromEnv(process.env);
  const diff = budgetDiff(redactSecrets(input.diffPatch, secrets), CRITIC_LIMITS.diffBytes, input.diffPath);
  const evidenceRefs = [
    input.diffPath,
    input.coderTranscriptPath,
    ...(input.seamEnvelope?.evidence_refs ?? []),
  ].filter((r): r is string => typeof r === "string" && r.length > 0);
  const coderMessage = excerpt(
    redactSecrets(input.coderFinalMessage, secrets),
    CRITIC_LIMITS.coderMessageBytes,
  ).text;
  const shownFiles = diff.files.slice(0, CRITIC_LIMITS.changedFileNames);
  const moreFiles = diff.files.length - shownFiles.length;
  const user = fillPrompt(loadPrompt("critic", "input.md"), {
    seam_result: seamResult(input.seamEnvelope),
    changed_count: String(diff.files.length),
    changed_files:
      diff.files.length === 0
        ? "(none: the attempt changed no files)"
        : shownFiles.map((f) => `- ${f}`).join("\n") + (moreFiles > 0 ? `\n- … and ${moreFiles} more` : ""),
    diff_note:
      diff.truncatedFiles.length === 0
        ? `The whole diff (${diff.totalBytes} bytes).`
        : `Shown ${diff.shownBytes} of ${diff.totalBytes} bytes; cut or omitted: ${nameList(diff.truncatedFiles, 20)}.`,
    diff: fence(diff.text || "(empty diff)", "diff"),
    coder_message: fence(coderMessage || "(no message)"),
    evidence_paths: evidenceRefs.map((r) => `- ${r}`).join("\n") || "(none)",
  });

  const messages = [new SystemMessage(system), new HumanMessage(user)];
  return {
    system,
    user,
    messages,
    bytes: utf8Bytes(system) + utf8Bytes(user),
    diff: {
      shownBytes: diff.shownBytes,
      totalBytes: diff.totalBytes,
      files: diff.files,
      truncatedFiles: diff.truncatedFiles,
    },
    evidenceRefs,
  };
}

/**
 * Bytes the Junie orchestrator's reviewer (docs/origins.md#00-junie-orchestrator) sends for the
 * same review: its JSON payload carries the whole diff and the whole coder log (plus the task
 * text), every iteration. For benchmarks only.
 */
export function naivePromptBytes(diff: string, log: string, taskText = ""): number {
  return utf8Bytes(JSON.stringify({ task: taskText, junie_output: log, git_diff: diff }));
}

function seamResult(env: SeamEnvelope | null): string {
  if (!env) return "(devflow has no seam result for this attempt)";
  const output = env.native_payload.output_excerpt;
  const lines = [
    `Result: ${env.overall_result} (green condition alignment: ${env.green_condition_alignment})`,
    `Summary: ${env.summary}`,
  ];
  if (typeof output === "string" && output.trim()) {
    lines.push("Output excerpt:", fence(excerpt(output, CRITIC_LIMITS.seamOutputBytes).text));
  }
  return lines.join("\n");
}

function listOrNone(items: readonly string[], none: string): string {
  return items.length === 0 ? none : items.join(", ");
}

/** A code fence longer than any backtick run in the text, so the data cannot close it early. */
function fence(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text.endsWith("\n") ? text : `${text}\n`}${f}`;
}

const utf8Bytes = (s: string): number => Buffer.byteLength(s, "utf8");
