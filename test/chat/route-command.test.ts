import { describe, expect, it } from "vitest";
import { cli as devflow } from "../support/cli.js";
import { cassetteWith, route } from "./support/intake-fixtures.js";

describe("devflow route", () => {
  it("prints the decision", async () => {
    const run = await devflow(
      "route",
      "--replay",
      cassetteWith({ router: [route("insight")] }),
      "how",
      "does",
      "it",
      "work?",
    );
    expect(run).toEqual({
      code: 0,
      out: "insight (confidence 0.90): the message asks for insight\n",
      err: "",
    });
  });

  it("--json prints the decision as one result line", async () => {
    const run = await devflow(
      "route",
      "--json",
      "--replay",
      cassetteWith({ router: [route("idea")] }),
      "plan billing",
    );
    // One result line (ADR 0046): the decision is its `decision`.
    expect(JSON.parse(run.out)).toEqual({
      type: "result",
      command: "route",
      exit_code: 0,
      error: null,
      decision: { route: "idea", rationale: "the message asks for idea", confidence: 0.9 },
    });
  });

  it("refuses an empty message with a usage error", async () => {
    const run = await devflow("route", "--replay", cassetteWith({}), "   ");
    expect(run.code).toBe(2);
    expect(run.err).toContain('the message is empty: devflow route "what you would say in the chat"');
  });

  it("reports a cassette without a router answer, naming the role", async () => {
    const run = await devflow("route", "--replay", cassetteWith({}), "fix it");
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/router/);
  });
});
