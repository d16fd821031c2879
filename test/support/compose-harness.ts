import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DevflowEvent, PlanRun } from "../../src/artifacts/schemas/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import {
  PLAN_DEMO_CASSETTES,
  PLAN_DEMO_CODER_SCRIPT,
  PLAN_DEMO_REQUEST,
} from "../../src/fixtures/plan-demo.js";
import { runCompose } from "../../src/lanes/compose/run.js";
import type { ComposeSettings } from "../../src/lanes/compose/settings.js";
import { runIdea } from "../../src/lanes/idea/run.js";
import type { ComposeOutcome } from "../../src/lanes/outcome.js";
import type { Cassette } from "../../src/models/cassette.js";
import { buildModelGateway } from "../../src/models/gateway.js";
import { tempDir } from "./lane-harness.js";

/** The plan coder's source with its second task's behaviour set: "repair" (near miss, then fixed) or "never". */
export function planCoder(t2: "repair" | "never" = "repair"): string {
  const source = readFileSync(PLAN_DEMO_CODER_SCRIPT, "utf8").replace(
    'const T2_MODE = "repair";',
    `const T2_MODE = ${JSON.stringify(t2)};`,
  );
  const path = join(tempDir("devflow-plan-coder-"), "plan-coder.mjs");
  writeFileSync(path, source);
  return `command:node ${JSON.stringify(path)}`;
}

/** A copy of the plan demo's cassettes, with `edit` applied to the named parts. */
export function planCassettes(edit: Partial<Record<string, (c: Cassette) => void>> = {}): string {
  const dir = join(tempDir("devflow-plan-cassettes-"), "plan");
  cpSync(PLAN_DEMO_CASSETTES, dir, { recursive: true });
  for (const [part, change] of Object.entries(edit)) {
    const file = join(dir, `${part}.json`);
    const cassette = JSON.parse(readFileSync(file, "utf8")) as Cassette;
    change?.(cassette);
    writeFileSync(file, JSON.stringify(cassette, null, 2));
  }
  return dir;
}

/** Plans the demo request on a fresh csv-import repo (replayed idea model): the brief's id. */
export async function planDemoBrief(repo: string, cassetteDir: string): Promise<string> {
  const gateway = buildModelGateway(
    { mode: "replay", model: "gpt-4.1-mini", cassettePath: join(cassetteDir, "idea.json"), env: process.env },
    null,
  );
  const outcome = await runIdea({ gateway, repoRoot: repo, request: PLAN_DEMO_REQUEST, priorTurns: [] });
  return outcome.result.id;
}

export interface ComposeRun {
  repo: string;
  planId: string;
  outcome: ComposeOutcome | null;
  run: PlanRun | null;
  error: unknown;
  events: DevflowEvent[];
  plans: PlanRun[];
}

export async function runComposeOn(input: {
  coder: string;
  cassetteDir?: string;
  repo?: string;
  planId?: string;
  settings?: Partial<ComposeSettings>;
}): Promise<ComposeRun> {
  const cassetteDir = input.cassetteDir ?? planCassettes();
  const repo = input.repo ?? createFixtureRepo("csv-import");
  const planId = input.planId ?? (await planDemoBrief(repo, cassetteDir));
  const events: DevflowEvent[] = [];
  const plans: PlanRun[] = [];
  let outcome: ComposeOutcome | null = null;
  let error: unknown = null;
  try {
    outcome = await runCompose(
      {
        repo,
        model: "gpt-4.1-mini",
        coder: input.coder,
        mode: "replay",
        cassetteDir,
        lane: { baseTimeoutMs: 60_000, commandTimeoutMs: 60_000, seamRuns: 1 },
        onProgress: (event) => events.push(event),
        onPlan: (run) => plans.push(run),
        ...input.settings,
      },
      planId,
    );
  } catch (e) {
    error = e;
  }
  return { repo, planId, outcome, run: outcome?.result.run ?? null, error, events, plans };
}

/** A part of a plan cassette dir, parsed (`idea`, `T1`, `review`, …). */
export const readPart = (dir: string, part: string): Cassette =>
  JSON.parse(readFileSync(join(dir, `${part}.json`), "utf8")) as Cassette;

/** Writes a part of a plan cassette dir (a re-plan's `replan-<n>`, `r<n>-T<k>`, `review-r<n>`). */
export const writePart = (dir: string, part: string, cassette: Cassette): void =>
  writeFileSync(join(dir, `${part}.json`), JSON.stringify(cassette, null, 2));

/** The structured answer of a part's first call of `role`, to edit in place. */
export function structuredOf(cassette: Cassette, role: keyof Cassette["calls"]): Record<string, unknown> {
  const entry = cassette.calls[role]?.[0];
  if (!entry || !("structured" in entry)) throw new Error(`the cassette has no structured ${role} answer`);
  return entry.structured as Record<string, unknown>;
}

/**
 * The demo plan cut to T1 and T2 (the plan forgot comment lines); the review of those two judges the
 * plan invalid. `replan-1.json` answers the missing task (the demo's T3, numbered T1 by the model),
 * `r1-T3.json` replays that task and `review-r1.json` passes the revised plan.
 */
export function reviewInvalidCassettes(): string {
  const dir = planCassettes({
    idea: (c) => {
      const plan = structuredOf(c, "idea");
      plan.tasks = (plan.tasks as unknown[]).slice(0, 2);
    },
    review: (c) => {
      const review = structuredOf(c, "critic");
      review.plan_invalid = true;
      review.summary = "The exported files carry '#' comment lines: the plan assumed they have none.";
    },
  });
  const demoIdea = readPart(planCassettes(), "idea");
  const plan = structuredOf(demoIdea, "idea");
  const [, , comments] = plan.tasks as { id: string; depends_on: string[] }[];
  plan.tasks = [{ ...comments, id: "T1", depends_on: [] }];
  writePart(dir, "replan-1", demoIdea);
  writePart(dir, "r1-T3", readPart(dir, "T3"));
  writePart(dir, "review-r1", readPart(planCassettes(), "review"));
  return dir;
}
