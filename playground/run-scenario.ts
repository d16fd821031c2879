import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPlanRun } from "../evals/graders/plan-run.js";
import type { ScenarioRun } from "../evals/types.js";
import type { Scenario } from "../scenarios/scenario.js";
import {
  type Cassette,
  type CassetteConsumption,
  createModelGateway,
  DEFAULT_LANE_OPTIONS,
  emptyUsage,
  type LaneOptions,
  type ModelGateway,
  PACKAGE_ROOT,
  type PlaygroundMode,
  type Role,
  type UsageSnapshot,
} from "../src/index.js";
import { runArmScenario } from "./runners/arm.js";
import { runComposeScenario } from "./runners/compose.js";
import type { RunContext } from "./runners/context.js";
import { runLaneScenario } from "./runners/lane.js";
import { messageOf } from "./runners/routing.js";
import { runSubagentScenario } from "./runners/subagent.js";

export const SCENARIOS_DIR = join(PACKAGE_ROOT, "scenarios");
export const CASSETTES_DIR = join(SCENARIOS_DIR, "cassettes");
/** The coder of scenarios that must never reach coding (the lane still needs one to start). */
export const UNREACHABLE_CODER = "unreachable-coder.mjs";

/** Lane limits for replayed runs: scripted coders finish in well under a second. */
const REPLAY_LANE: Partial<LaneOptions> = {
  maxJudgeAttempts: 3,
  baseTimeoutMs: 60_000,
  commandTimeoutMs: 60_000,
};

export type { PlaygroundMode };

export interface ExecuteOptions {
  mode: PlaygroundMode;
  model: string;
  /** A coder backend spec; null: the scenario's scripted coder from scenarios/coders/. */
  coder: string | null;
  cassetteDir: string;
  env?: NodeJS.ProcessEnv;
  /** Replay this cassette instead of the scenario's file (tests break scenarios this way). */
  cassette?: Cassette;
  /** Use this scripted coder (a path to a Node script) instead of the scenario's. */
  coderScript?: string;
  onEvent?: RunContext["onEvent"];
}

export interface ScenarioExecution {
  run: ScenarioRun;
  /** Replay: the cassette's answers no call consumed, per role (empty when every one was used). */
  unusedReplies: Partial<Record<Role, number>>;
  usage: UsageSnapshot;
  durationMs: number;
}

/** `command:node "<script>"`: how a scripted coder is handed to the lane. */
export function scriptedCoder(scenario: Scenario, override?: string): string {
  const script = override ?? join(SCENARIOS_DIR, "coders", scenario.input.coder ?? UNREACHABLE_CODER);
  return `command:node ${JSON.stringify(script)}`;
}

/** Where a scenario's cassette is read from (replay) or written to (record: never the replayed file). */
export function cassettePathFor(
  scenario: Scenario,
  opts: Pick<ExecuteOptions, "mode" | "cassetteDir">,
): string {
  return join(opts.cassetteDir, opts.mode === "record" ? `${scenario.name}.json` : scenario.cassette);
}

/**
 * The gateway of one run: each scenario gets its own, so parallel runs never share a cassette
 * queue. A replacement cassette is written to a temp file, read at once, and removed.
 */
export function gatewayFor(scenario: Scenario, opts: ExecuteOptions): ModelGateway & CassetteConsumption {
  const env = opts.env ?? process.env;
  if (opts.mode === "live") return createModelGateway({ mode: "live", model: opts.model, env });
  if (!opts.cassette || opts.mode !== "replay") {
    return createModelGateway({
      mode: opts.mode,
      model: opts.model,
      cassettePath: cassettePathFor(scenario, opts),
      env,
    });
  }
  const dir = mkdtempSync(join(tmpdir(), "devflow-cassette-"));
  try {
    const cassettePath = join(dir, `${scenario.name}.json`);
    writeFileSync(cassettePath, JSON.stringify(opts.cassette, null, 2));
    return createModelGateway({ mode: "replay", model: opts.model, cassettePath, env });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs one scenario the way its kind says (router, lane, or one agent's node alone) with a fresh
 * fixture repo, and measures it. Failures to even start (a missing cassette, no endpoint) become
 * the run's error, so the suite reports them per scenario instead of stopping.
 */
export async function executeScenario(scenario: Scenario, opts: ExecuteOptions): Promise<ScenarioExecution> {
  if (scenario.kind === "compose") return executeCompose(scenario, opts);
  const started = performance.now();
  let gateway: (ModelGateway & CassetteConsumption) | null = null;
  let run: ScenarioRun;
  try {
    gateway = gatewayFor(scenario, opts);
    const ctx: RunContext = {
      gateway,
      coder: opts.coder ?? scriptedCoder(scenario, opts.coderScript),
      model: opts.model,
      lane:
        opts.mode === "replay"
          ? REPLAY_LANE
          : { maxJudgeAttempts: 3, baseTimeoutMs: DEFAULT_LANE_OPTIONS.baseTimeoutMs },
      ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
    };
    run = await runByKind(scenario, ctx);
    await gateway.flush();
  } catch (error) {
    run = {
      scenario: scenario.name,
      repo: null,
      taskDir: null,
      worktree: null,
      routes: [],
      terminal: null,
      steps: [],
      error: messageOf(error),
    };
  }
  return {
    run,
    unusedReplies: gateway?.unusedReplies() ?? {},
    usage: gateway?.usage() ?? emptySnapshot(),
    durationMs: Math.round(performance.now() - started),
  };
}

/**
 * A compose scenario: its cassette is a folder of parts (ADR 0058), so the gateways are built per
 * part by the compose runner; the report's usage is the plan's own total (plan_run.json).
 */
async function executeCompose(scenario: Scenario, opts: ExecuteOptions): Promise<ScenarioExecution> {
  const started = performance.now();
  const { run, unusedReplies } = await runComposeScenario(scenario, {
    coder: opts.coder ?? scriptedCoder(scenario, opts.coderScript),
    model: opts.model,
    lane: opts.mode === "replay" ? REPLAY_LANE : { baseTimeoutMs: DEFAULT_LANE_OPTIONS.baseTimeoutMs },
    mode: opts.mode,
    cassetteDir: opts.cassetteDir,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
  });
  const usage = emptySnapshot();
  const { plan } = loadPlanRun(run);
  if (plan) usage.total = plan.usage;
  return { run, unusedReplies, usage, durationMs: Math.round(performance.now() - started) };
}

function runByKind(scenario: Scenario, ctx: RunContext): Promise<ScenarioRun> {
  switch (scenario.kind) {
    case "routing":
    case "arm":
      return runArmScenario(scenario, ctx);
    case "lane":
      return runLaneScenario(scenario, ctx);
    case "framer":
    case "observer":
    case "coder":
      return runSubagentScenario(scenario, ctx);
    case "compose":
      throw new Error("compose scenarios run through executeCompose");
  }
}

function emptySnapshot(): UsageSnapshot {
  return { total: emptyUsage(), by_role: {}, by_attempt: {}, priced: true, unpriced_models: [] };
}
