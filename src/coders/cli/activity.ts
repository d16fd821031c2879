import { getArray, getObject, getString, isJsonObject, type JsonObject, parseJsonObject } from "./json.js";

/**
 * What one line of a CLI's event stream says the coder is doing, or null when it says nothing a
 * person watching would want (usage, thread ids). Used only for the live progress line.
 */
export type ActivityOf = (line: string) => string | null;

const firstLine = (text: string | undefined): string | null => {
  const line = text?.split("\n").find((l) => l.trim() !== "");
  return line === undefined ? null : line.trim();
};

/** `codex exec --json`: item.started / item.completed events. */
export const codexActivity: ActivityOf = (line) => {
  const event = parseJsonObject(line);
  const type = getString(event ?? undefined, "type");
  if (event === null || (type !== "item.started" && type !== "item.completed")) return null;
  const item = getObject(event, "item");
  switch (getString(item, "type")) {
    case "command_execution":
      return `$ ${getString(item, "command") ?? ""}`;
    case "agent_message":
      return firstLine(getString(item, "text"));
    case "reasoning":
      return "thinking";
    case "file_change": {
      const paths = (getArray(item, "changes") ?? [])
        .filter(isJsonObject)
        .map((c) => getString(c, "path"))
        .filter((p): p is string => p !== undefined);
      return paths.length ? `edit ${paths.join(", ")}` : "editing files";
    }
    case "mcp_tool_call":
      return `tool ${getString(item, "tool") ?? ""}`;
    case "web_search":
      return `search ${getString(item, "query") ?? ""}`;
    default:
      return null;
  }
};

/** The argument worth showing of a tool call: the command, the path or the pattern. */
function toolArgument(input: JsonObject | undefined): string {
  for (const key of ["command", "file_path", "path", "filePath", "pattern", "url"]) {
    const value = getString(input, key);
    if (value !== undefined) return ` ${value}`;
  }
  return "";
}

/** `claude -p --output-format stream-json`: the assistant's tool calls and text. */
export const claudeActivity: ActivityOf = (line) => {
  const event = parseJsonObject(line);
  if (event === null || getString(event, "type") !== "assistant") return null;
  const parts = (getArray(getObject(event, "message"), "content") ?? []).filter(isJsonObject);
  const tool = parts.findLast((p) => getString(p, "type") === "tool_use");
  if (tool !== undefined)
    return `${getString(tool, "name") ?? "tool"}${toolArgument(getObject(tool, "input"))}`;
  const text = parts.findLast((p) => getString(p, "type") === "text");
  return firstLine(getString(text, "text"));
};

/** `opencode run --format json`: tool use and text parts. */
export const opencodeActivity: ActivityOf = (line) => {
  const event = parseJsonObject(line);
  if (event === null) return null;
  const part = getObject(event, "part");
  switch (getString(event, "type")) {
    case "tool_use":
      return `${getString(part, "tool") ?? "tool"}${toolArgument(getObject(getObject(part, "state"), "input"))}`;
    case "text":
      return firstLine(getString(part, "text"));
    default:
      return null;
  }
};
