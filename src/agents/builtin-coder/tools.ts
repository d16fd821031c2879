import { editFileTool } from "../../tools/edit-file.js";
import {
  type AgentTool,
  bindAll,
  listFilesTool,
  readFileTool,
  runCommandTool,
  searchTool,
  type ToolContext,
} from "../../tools/index.js";
import { writeFileTool } from "../../tools/write-file.js";
import { loadPrompt } from "../../util/prompts.js";

/**
 * The builtin coder's kit: read and search, edit and write files, run commands, all confined to
 * the worktree. run_command's own description speaks to the Observer ("your job is to observe"),
 * so the coder's tool gets the coder's description from run_command.md here.
 */
export function builtinCoderTools(ctx: ToolContext, options: { commandTimeoutMs: number }): AgentTool[] {
  const runCommand = runCommandTool({ defaultTimeoutMs: options.commandTimeoutMs }).bind(ctx);
  runCommand.description = loadPrompt("builtin-coder", "run_command.md").trim();
  return [
    ...bindAll([listFilesTool, readFileTool, searchTool, editFileTool, writeFileTool], ctx),
    runCommand,
  ];
}
