/**
 * An expected refusal or user-level problem (path outside the worktree, file exists, bad regex).
 * defineTool returns its message to the model verbatim, so it must say what to do instead.
 */
export class ToolRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolRefusal";
  }
}
