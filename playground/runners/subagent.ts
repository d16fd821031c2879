import type { ScenarioRun } from "../../evals/types.js";
import type { Scenario } from "../../scenarios/scenario.js";
import {
  DEFAULT_LANE_OPTIONS,
  hashSeamFiles,
  type IterateStateUpdate,
  type LaneDeps,
  type LaneOptions,
  type LaneSubset,
  Reporter,
  resolveCoder,
  snapshotTree,
} from "../../src/index.js";
import { seedObservation, seedRunRecord, seedTask } from "../harness/seed-artifacts.js";
import { prepareTask } from "../harness/task-workspace.js";
import type { RunContext } from "./context.js";
import { runLaneSubset } from "./lane-subset.js";
import { messageOf } from "./routing.js";

/**
 * Which part of the real lane each subagent scenario runs: the framer's frame node, the
 * observer's observe node (the Observer agent plus devflow's seam check), and for the coder one
 * coder run with its verifiers and the completion gate (readiness first, because it takes the
 * regression baseline the regression verifier compares against).
 */
const SUBSETS: Record<"framer" | "observer" | "coder", LaneSubset> = {
  framer: { entry: "frame", nodes: ["frame"] },
  observer: { entry: "observe", nodes: ["observe"] },
  coder: { entry: "readiness", nodes: ["readiness", "code", "verify", "gate"] },
};

/**
 * A subagent scenario: the agent's node(s) alone on a seeded task directory laid out like a real
 * run's (fixture repo, worktree, iterator_run, and the task / observation the agent receives).
 */
export async function runSubagentScenario(scenario: Scenario, ctx: RunContext): Promise<ScenarioRun> {
  const role = scenario.input.role;
  if (role === undefined || scenario.kind !== role) {
    throw new Error(`scenario ${scenario.name}: kind ${scenario.kind} needs input.role "${scenario.kind}"`);
  }
  const taskId = scenario.name;
  const { repo, workspace, store } = await prepareTask(scenario.input.fixture, taskId);
  const lane: LaneOptions = {
    ...DEFAULT_LANE_OPTIONS,
    ...ctx.lane,
    ...scenario.input.lane,
    interactive: false,
  };
  const base: ScenarioRun = {
    scenario: scenario.name,
    repo,
    taskDir: store.dir,
    worktree: workspace.worktree,
    routes: [],
    terminal: null,
    steps: [],
    error: null,
  };
  try {
    const coder = resolveCoder(ctx.coder);
    await seedRunRecord(store, workspace, {
      taskId,
      lane,
      coder: coder.name,
      model: ctx.gateway.modelName("framer"),
    });
    const deps: LaneDeps = {
      gateway: ctx.gateway,
      coder,
      store,
      reporter: new Reporter(taskId, (event) => ctx.onEvent?.(event), store),
      options: lane,
    };
    let input: IterateStateUpdate = {
      taskId,
      request: scenario.input.request,
      priorTurns: scenario.input.priorTurns,
      repoRoot: repo,
      worktree: workspace.worktree,
      branch: workspace.branch,
      baseCommit: workspace.baseCommit,
    };
    if (role !== "framer") {
      if (!scenario.input.task)
        throw new Error(`scenario ${scenario.name}: a ${role} scenario needs input.task`);
      const task = await seedTask(store, taskId, scenario.input, scenario.input.task);
      if (role === "coder") {
        if (!scenario.input.observation)
          throw new Error(`scenario ${scenario.name}: a coder scenario needs input.observation`);
        const observation = await seedObservation(
          store,
          workspace,
          task,
          scenario.input.observation,
          lane.commandTimeoutMs,
        );
        input = {
          ...input,
          seamTree: await snapshotTree(workspace.worktree),
          seamFileHashes: await hashSeamFiles(workspace.worktree, observation.failing_seam?.files ?? []),
        };
      }
    }
    return { ...base, steps: await runLaneSubset(deps, SUBSETS[role], input, taskId) };
  } catch (error) {
    return { ...base, error: messageOf(error) };
  }
}
