import { describe, expect, it } from "vitest";
import { demoCassette, writeCassette } from "../../../test/support/lane-harness.js";
import { startOpenAIServer, toolCallAnswer } from "../../../test/support/openai-server.js";
import { createModelGateway } from "../../models/create-gateway.js";
import { type RouteDecision, routeMessage, type Turn } from "./router.js";

/** The route evals of the iterate-arm design (docs/origins.md#03-routing), plus a message that is about nothing. */
const ROUTE_CASES: { name: string; message: string; priorTurns: Turn[]; decision: RouteDecision }[] = [
  {
    name: "a concrete fix request goes to iterate",
    message: "CSV import rejects ' alice@example.com ' as an invalid email; trim it before validating.",
    priorTurns: [],
    decision: { route: "iterate", rationale: "A concrete error with a named surface.", confidence: 0.93 },
  },
  {
    name: "an investigation-only request goes to insight",
    message: "How does the CSV import decide that an email is invalid? Just explain, don't change anything.",
    priorTurns: [],
    decision: { route: "insight", rationale: "Explanation only, no change requested.", confidence: 0.9 },
  },
  {
    name: "a broader feature or workflow request goes to idea",
    message: "Let users import contacts from Google, Outlook and CSV with de-duplication and a review step.",
    priorTurns: [],
    decision: { route: "idea", rationale: "A new multi-source workflow, not task-scale.", confidence: 0.88 },
  },
  {
    name: "a small request stays in iterate instead of being inflated",
    message: "now also trim the names",
    priorTurns: [
      { role: "user", content: "CSV import rejects emails with spaces around them, fix it" },
      { role: "assistant", content: "completed: emails are trimmed before validation" },
    ],
    decision: {
      route: "iterate",
      rationale: "A one-line follow-up tweak to the same surface.",
      confidence: 0.86,
    },
  },
  {
    name: "small talk goes to neither",
    message: "thanks, that's all for today",
    priorTurns: [],
    decision: { route: "neither", rationale: "No request about the code.", confidence: 0.97 },
  },
];

describe("routeMessage with a replayed model (docs/origins.md#03-routing route cases)", () => {
  const cassette = demoCassette();
  cassette.calls = { router: ROUTE_CASES.map((c) => ({ structured: c.decision })) };
  const gateway = createModelGateway({ mode: "replay", cassettePath: writeCassette(cassette) });

  // Sequential on purpose: the cassette answers router calls in order.
  for (const c of ROUTE_CASES) {
    it(c.name, async () => {
      const decision = await routeMessage({ gateway, message: c.message, priorTurns: c.priorTurns });
      expect(decision).toEqual(c.decision);
    });
  }
});

describe("routeMessage", () => {
  it("sends the router prompt, the prior turns and the new message, and forces route_decision", async () => {
    const server = await startOpenAIServer([
      toolCallAnswer("route_decision", { route: "iterate", rationale: "small tweak", confidence: 0.8 }),
    ]);
    try {
      const gateway = createModelGateway({
        mode: "live",
        maxRetries: 0,
        env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-router-000000" },
      });
      const decision = await routeMessage({
        gateway,
        message: "now also trim the names",
        priorTurns: [{ role: "user", content: "fix the email trimming in the CSV import" }],
      });
      expect(decision.route).toBe("iterate");
      const body = server.requests[0]?.body;
      expect(body?.tool_choice).toMatchObject({ function: { name: "route_decision" } });
      const [system, human] = body?.messages ?? [];
      expect(String(system?.content)).toContain("Keep small requests small");
      expect(String(human?.content)).toContain("user: fix the email trimming in the CSV import");
      expect(String(human?.content)).toMatch(/## New message\nnow also trim the names$/);
    } finally {
      await server.close();
    }
  });

  it("rejects an answer outside the route set after one repair round, naming the router", async () => {
    const cassette = demoCassette();
    const bad = { structured: { route: "frontend", rationale: "?", confidence: 2 } };
    cassette.calls = { router: [bad, bad] };
    const gateway = createModelGateway({ mode: "replay", cassettePath: writeCassette(cassette) });
    const routed = routeMessage({ gateway, message: "fix it", priorTurns: [] });
    await expect(routed).rejects.toMatchObject({ code: "MODEL_NO_VALID_ANSWER" });
    await expect(routed).rejects.toThrow(/router/);
  });
});
