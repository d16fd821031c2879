import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findScenario } from "../scenarios/index.js";
import { loadCassette } from "../src/index.js";
import { type OpenAIServer, startOpenAIServer, toolCallAnswer } from "../test/support/openai-server.js";
import { runPlayground } from "./run-playground.js";

const ROUTES = [
  { route: "iterate", rationale: "One concrete bug to fix in the CSV import.", confidence: 0.9 },
  { route: "insight", rationale: "Asks only for an explanation.", confidence: 0.9 },
  { route: "idea", rationale: "A multi-source sync with a review screen is new planning.", confidence: 0.85 },
  { route: "iterate", rationale: "A one-line copy tweak.", confidence: 0.95 },
];

let server: OpenAIServer | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The routing scenario through the suite runner, in `mode`, against the test endpoint when there is one. */
async function routeSuite(
  mode: "record" | "replay" | "live",
  cassetteDir: string,
  cassette = "devin_iterate_routing.json",
) {
  const env = server
    ? { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-not-a-real-key", PATH: process.env.PATH ?? "" }
    : undefined;
  const routing = await findScenario("devin_iterate_routing");
  return runPlayground({
    scenarios: [{ ...routing, scenario: { ...routing.scenario, cassette } }],
    mode,
    model: "gpt-4.1-mini",
    coder: null,
    cassetteDir,
    concurrency: 1,
    keep: false,
    ...(env ? { env } : {}),
  });
}

describe("playground against an OpenAI-compatible endpoint", () => {
  it("--record writes <name>.json into the cassette dir, and that cassette replays to the same verdict offline", async () => {
    server = await startOpenAIServer(
      ROUTES.map((r) => toolCallAnswer("route_decision", r, { prompt_tokens: 500, completion_tokens: 40 })),
    );
    const cassetteDir = mkdtempSync(join(tmpdir(), "devflow-record-"));
    dirs.push(cassetteDir);
    const recorded = await routeSuite("record", cassetteDir);
    expect(recorded.results[0]?.evaluation.notes).toEqual([]);
    expect(recorded).toMatchObject({ passed: 1, failed: 0, mode: "record" });
    expect(recorded.results[0]?.tokens).toBe(4 * 540);
    expect(server.requests.map((r) => r.body.tool_choice)).toHaveLength(4);

    const cassette = loadCassette(join(cassetteDir, "devin_iterate_routing.json"));
    expect(cassette.calls.router?.map((e) => ("structured" in e ? e.structured.route : null))).toEqual(
      ROUTES.map((r) => r.route),
    );

    const before = server.requests.length;
    const replayed = await routeSuite("replay", cassetteDir);
    expect(replayed).toMatchObject({ passed: 1, failed: 0 });
    expect(server.requests.length).toBe(before);
  });

  it("--live grades what the live model answered: a wrong route fails the scenario", async () => {
    const wrong = ROUTES.map((r, i) => (i === 1 ? { ...r, route: "iterate" } : r));
    server = await startOpenAIServer(wrong.map((r) => toolCallAnswer("route_decision", r)));
    const cassetteDir = mkdtempSync(join(tmpdir(), "devflow-live-"));
    dirs.push(cassetteDir);
    const report = await routeSuite("live", cassetteDir);
    expect(report).toMatchObject({ passed: 0, failed: 1, mode: "live" });
    expect(report.results[0]?.evaluation.criteria.routes_investigation_to_insight).toBe("fail");
    expect(existsSync(join(cassetteDir, "devin_iterate_routing.json"))).toBe(false);
  });
});
