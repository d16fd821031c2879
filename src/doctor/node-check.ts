import type { ToolCheck } from "./types.js";
import { atLeast } from "./version.js";

/** package.json "engines" (a test keeps the two in sync). */
export const MIN_NODE = "20.19";

export function checkNode(version: string = process.versions.node): ToolCheck {
  const ok = atLeast(version, MIN_NODE);
  return {
    name: "node",
    status: ok ? "ok" : "fail",
    version,
    required: MIN_NODE,
    path: process.execPath,
    detail: ok ? `Node.js ${version}` : `Node.js ${version} is older than ${MIN_NODE}`,
    hint: ok
      ? null
      : `Install Node.js ${MIN_NODE} or newer (https://nodejs.org/en/download, or \`nvm install 20\`), then reinstall devflow with it.`,
  };
}
