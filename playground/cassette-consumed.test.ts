import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findScenario } from "../scenarios/index.js";
import { loadCassette } from "../src/index.js";
import { gradeScenario } from "./run-playground.js";
import { CASSETTES_DIR, type ExecuteOptions } from "./run-scenario.js";

const REPLAY: ExecuteOptions = {
  mode: "replay",
  model: "gpt-4.1-mini",
  coder: null,
  cassetteDir: CASSETTES_DIR,
};

describe("a replay must use its whole cassette", () => {
  it("a passing scenario whose cassette has answers left over fails, naming the role and the count", async () => {
    const routing = await findScenario("devin_iterate_routing");
    const cassette = structuredClone(loadCassette(join(CASSETTES_DIR, routing.scenario.cassette)));
    const router = cassette.calls.router ?? [];
    const last = router.at(-1);
    if (!last) throw new Error("the routing cassette has no router answer");
    cassette.calls.router = [...router, last, last];

    const { execution, evaluation } = await gradeScenario(routing, { ...REPLAY, cassette });
    expect(execution.unusedReplies).toEqual({ router: 2 });
    expect(evaluation.ok).toBe(false);
    expect(evaluation.criteria.cassette_fully_replayed).toBe("fail");
    expect(evaluation.notes[0]).toMatch(/cassette_fully_replayed: .*\(router: 2\)/);
  });

  it("the untouched cassette is used up exactly", async () => {
    const { execution, evaluation } = await gradeScenario(
      await findScenario("devin_iterate_routing"),
      REPLAY,
    );
    expect(execution.unusedReplies).toEqual({});
    expect(evaluation.ok).toBe(true);
  });
});
