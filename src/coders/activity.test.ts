import { describe, expect, it } from "vitest";
import { activityText, reportActivity } from "./activity.js";
import { claudeActivity, codexActivity, opencodeActivity } from "./cli/activity.js";

describe("coder activity", () => {
  // A coder's output is untrusted: an escape sequence in it would drive the user's terminal
  // through the live line (move the cursor, recolour, retitle the window).
  it("strips control characters and bounds the text", () => {
    expect(activityText("\u001b[2J\u001b]0;pwned\u0007ls\r\n  -la")).toBe("[2J ]0;pwned ls -la");
    expect(activityText("x".repeat(500))).toHaveLength(160);
  });

  it("a throwing display never reaches the coder run", () => {
    const report = reportActivity(() => {
      throw new Error("display broke");
    });
    expect(() => report("working")).not.toThrow();
  });

  it("reads what each event stream says the coder is doing", () => {
    const line = (o: unknown) => JSON.stringify(o);
    expect(
      codexActivity(line({ type: "item.started", item: { type: "command_execution", command: "npm test" } })),
    ).toBe("$ npm test");
    expect(codexActivity(line({ type: "turn.completed", usage: {} }))).toBeNull();
    expect(
      claudeActivity(
        line({
          type: "assistant",
          message: { content: [{ type: "tool_use", name: "Edit", input: { file_path: "src/a.ts" } }] },
        }),
      ),
    ).toBe("Edit src/a.ts");
    expect(opencodeActivity(line({ type: "text", part: { text: "\nLooking at the tests" } }))).toBe(
      "Looking at the tests",
    );
    expect(codexActivity("not json")).toBeNull();
  });
});
