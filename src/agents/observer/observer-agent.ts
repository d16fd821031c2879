import { ObservationFindings, type TaskArtifact } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { observerTools, type ToolConfinement, type ToolContext } from "../../tools/index.js";
import { fillPrompt, loadPrompt } from "../../util/prompts.js";
import { runToolAgent } from "../kit/index.js";

/** The structured-answer tool createAgent offers the model; replay cassettes may name it. */
export const OBSERVER_ANSWER_TOOL = "observation_findings";

export interface ObserverLimits {
  /** Model turns, including the final answer. */
  modelCalls: number;
  /** Tool calls over the whole run; beyond it the model is told to stop calling tools. */
  toolCalls: number;
  /** Retries of a transient model failure (rate limit, 5xx, connection, timeout). */
  modelRetries: number;
  /** First backoff of those retries (doubles each time). */
  modelRetryDelayMs: number;
  /** Default timeout of one run_command. */
  commandTimeoutMs: number;
}

export const DEFAULT_OBSERVER_LIMITS: ObserverLimits = {
  modelCalls: 12,
  toolCalls: 30,
  modelRetries: 2,
  modelRetryDelayMs: 1000,
  commandTimeoutMs: 120_000,
};

export interface ObserverAgentInput {
  gateway: ModelGateway;
  task: TaskArtifact;
  worktree: string;
  /** The rendered repository map shown to the model. */
  repoMap: string;
  signal?: AbortSignal;
  limits?: Partial<ObserverLimits>;
  /**
   * How its run_command runs (ADR 0031). The lane always confines it: the Observer's commands run
   * the repository's code, and a re-observation runs in a checkout a coder already wrote.
   */
  confinement?: ToolConfinement;
}

/** Why the agent stopped without its own answer (null: it answered). */
export type ObserverStop = "model_call_limit" | "step_limit" | "no_answer" | null;

export interface ObserverAgentResult {
  findings: ObservationFindings;
  /** Repo-relative files the agent created (repro tests), whether or not its findings cite them. */
  writtenFiles: string[];
  toolCalls: number;
  modelCalls: number;
  stoppedBy: ObserverStop;
}

/**
 * The Observer: a tool agent (runToolAgent) with the read/run/add-a-test tools. When its limits
 * stop it, or it ends without answering, the result is an honest inconclusive finding built here,
 * never a seam the model did not deliver.
 */
export async function runObserverAgent(input: ObserverAgentInput): Promise<ObserverAgentResult> {
  const limits = { ...DEFAULT_OBSERVER_LIMITS, ...input.limits };
  const signal = input.signal ?? new AbortController().signal;
  const ctx: ToolContext = {
    worktree: input.worktree,
    signal,
    written: new Set(),
    ...(input.confinement ? { confinement: input.confinement } : {}),
  };

  const run = await runToolAgent({
    name: "observer",
    role: "observer",
    model: input.gateway.chatModel("observer"),
    tools: observerTools(ctx, { runCommand: { defaultTimeoutMs: limits.commandTimeoutMs } }),
    systemPrompt: observerSystemPrompt(input.task, input.repoMap, limits),
    input: input.task.request,
    limits,
    modelRetry: { maxRetries: limits.modelRetries, initialDelayMs: limits.modelRetryDelayMs },
    answer: {
      tool: OBSERVER_ANSWER_TOOL,
      description: "Your final observation. Call this exactly once, at the end.",
      schema: ObservationFindings,
      owner: "the observer's",
      repairFeedback: (problems) =>
        fillPrompt(loadPrompt("observer", "answer-repair.md"), {
          answer_tool: OBSERVER_ANSWER_TOOL,
          problems,
        }),
    },
    signal,
  });
  if (run.status === "failed" || run.status === "aborted") throw run.error;

  const counts = {
    writtenFiles: [...ctx.written].sort(),
    toolCalls: run.toolCalls,
    modelCalls: run.modelCalls,
  };
  if (run.status === "answered") return { findings: run.answer, ...counts, stoppedBy: null };
  const stoppedBy: Exclude<ObserverStop, null> =
    run.status === "no_answer" ? "no_answer" : run.limit === "steps" ? "step_limit" : "model_call_limit";
  return { findings: unfinishedFindings(stoppedBy, limits, counts), ...counts, stoppedBy };
}

function unfinishedFindings(
  stoppedBy: Exclude<ObserverStop, null>,
  limits: ObserverLimits,
  counts: { writtenFiles: string[]; toolCalls: number; modelCalls: number },
): ObservationFindings {
  const why = {
    model_call_limit: `its budget of ${limits.modelCalls} model calls ran out`,
    step_limit: "it hit the agent's step limit (it kept looping without answering)",
    no_answer: "the model ended without giving its structured answer",
  }[stoppedBy];
  const written =
    counts.writtenFiles.length > 0
      ? ` It had created ${counts.writtenFiles.join(", ")}, which was never reported as a verified seam.`
      : "";
  return {
    status: "inconclusive",
    summary:
      `The observer stopped before reaching a conclusion: ${why} after ${counts.toolCalls} tool calls. ` +
      `Nothing was confirmed and no failing seam is claimed.${written}`,
    evidence: [],
    repro_steps: [],
    failing_seam: null,
    expected_green_condition: null,
    verdict: "needs_more_context",
    questions: [
      "The problem could not be confirmed automatically. Which command, test, log or exact steps show it, and where in the code should it be looked for?",
    ],
  };
}

/** agents/observer/prompt.md with the task and the repository map filled in. */
export function observerSystemPrompt(task: TaskArtifact, repoMap: string, limits: ObserverLimits): string {
  return fillPrompt(loadPrompt("observer"), {
    title: task.title,
    task_type: task.task_type,
    task_details: renderTaskDetails(task),
    current_behavior: task.current_behavior,
    desired_behavior: task.desired_behavior,
    success_criteria: task.success_criteria.map((c, i) => `${i + 1}. ${c}`).join("\n"),
    surface_hints: renderSurfaceHints(task),
    scope: renderScope(task),
    facts: bullets(task.facts),
    assumptions: bullets(task.assumptions),
    blocking_unknowns: bullets(task.blocking_unknowns),
    repo_map: repoMap.trim() === "" ? "(no repository map available; use list_files)" : repoMap.trim(),
    model_call_limit: String(limits.modelCalls),
    tool_call_limit: String(limits.toolCalls),
  });
}

function bullets(items: string[]): string {
  return items.length === 0 ? "- (none)" : items.map((item) => `- ${item}`).join("\n");
}

function renderTaskDetails(task: TaskArtifact): string {
  const { error_fix, quick_change, targeted_improvement } = task.task_details;
  if (task.task_type === "error_fix" && error_fix) {
    const hints =
      error_fix.error_location_hints.length > 0 ? error_fix.error_location_hints.join(", ") : "none";
    const logs = error_fix.logs_or_trace
      ? `\n  Logs or trace from the user:\n${indent(error_fix.logs_or_trace)}`
      : "";
    return `reported error: ${error_fix.reported_error}; location hints: ${hints}${logs}`;
  }
  if (task.task_type === "quick_change" && quick_change) {
    return `change: ${quick_change.change_summary}; target surface: ${quick_change.target_surface}`;
  }
  if (task.task_type === "targeted_improvement" && targeted_improvement) {
    return `goal: ${targeted_improvement.improvement_goal}; measurable signal: ${targeted_improvement.measurable_signal}`;
  }
  return "(none given)";
}

function renderSurfaceHints(task: TaskArtifact): string {
  const { files, routes, components, functions } = task.surface_hints;
  const lines = [
    ["files", files],
    ["routes", routes],
    ["components", components],
    ["functions", functions],
  ] as const;
  const present = lines
    .filter(([, values]) => values.length > 0)
    .map(([name, values]) => `- ${name}: ${values.join(", ")}`);
  return present.length > 0 ? present.join("\n") : "- (none given)";
}

function renderScope(task: TaskArtifact): string {
  const { statement, allowed_paths, out_of_scope } = task.scope_boundary;
  const paths = allowed_paths.length > 0 ? ` Allowed paths: ${allowed_paths.join(", ")}.` : "";
  const out = out_of_scope.length > 0 ? ` Out of scope: ${out_of_scope.join("; ")}.` : "";
  return `${statement}${paths}${out}`;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
