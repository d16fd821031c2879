import type { AgentTool, ToolContext, ToolFactory } from "./define-tool.js";
import { listFilesTool } from "./list-files.js";
import { readFileTool } from "./read-file.js";
import { type RunCommandOptions, runCommandTool } from "./run-command.js";
import { searchTool } from "./search.js";
import { writeTestFileTool } from "./write-test-file.js";

export { type AnswerRepairOptions, answerRepairMiddleware } from "./answer-repair-middleware.js";
export type { AgentTool, ToolConfinement, ToolContext, ToolFactory, ToolSpec } from "./define-tool.js";
export { defineTool, loadToolDescription, MAX_TOOL_OUTPUT_BYTES } from "./define-tool.js";
export { limitToolOutput } from "./limit-output.js";
export { listFilesTool } from "./list-files.js";
export { readFileTool } from "./read-file.js";
export { type RunCommandOptions, runCommandTool } from "./run-command.js";
export { searchTool } from "./search.js";
export { ToolRefusal } from "./tool-refusal.js";
export { resolveInWorktree, resolveNewFileInWorktree, type WorktreePath } from "./worktree-path.js";
export { writeTestFileTool } from "./write-test-file.js";

/** Reading tools only (no commands, no writes): for agents that must leave the worktree untouched. */
export function readOnlyTools(ctx: ToolContext): AgentTool[] {
  return bindAll([listFilesTool, readFileTool, searchTool], ctx);
}

/** The Observer's kit: read the repo, run commands, and add (never change) a repro test. */
export function observerTools(
  ctx: ToolContext,
  options: { runCommand?: RunCommandOptions } = {},
): AgentTool[] {
  return bindAll(
    [listFilesTool, readFileTool, searchTool, runCommandTool(options.runCommand), writeTestFileTool],
    ctx,
  );
}

export function bindAll(factories: ToolFactory[], ctx: ToolContext): AgentTool[] {
  return factories.map((factory) => factory.bind(ctx));
}
