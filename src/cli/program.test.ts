import { describe, expect, it } from "vitest";
import { cli } from "../../test/support/cli.js";
import { writeCassette } from "../../test/support/lane-harness.js";

describe("runCli error reports", () => {
  it("a command without --resume does not suggest it", async () => {
    const bad = { structured: { route: "elsewhere" } };
    const cassette = writeCassette({ version: 1, calls: { router: [bad, bad] } });
    const r = await cli("route", "fix the login bug", "--replay", cassette);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^devflow: the router model gave no valid answer: /);
    expect(r.err).toContain("  → fix the model/cassette, then run the command again");
    expect(r.err).not.toContain("--resume");
  });
});
