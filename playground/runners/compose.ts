import { join } from "node:path";
import type { ScenarioRun } from "../../evals/types.js";
import type { Scenario } from "../../scenarios/scenario.js";
import {
  type CassetteConsumption,
  createFixtureRepo,
  createModelGateway,
  type ModelGateway,
  openPlanStore,
  type PlaygroundMode,
  type ReplanAsk,
  type Role,
  runCompose,
  runIdea,
} from "../../src/index.js";
import type { RunContext } from "./context.js";
import { messageOf } from "./routing.js";

/** What a compose run returns besides the run: the planner's and review's cassette leftovers. */
export interface ComposeExecution {
  run: ScenarioRun;
  unusedReplies: Partial<Record<Role, number>>;
}

/**
 * A compose scenario (ADR 0058): the idea planner plans the request on a fresh fixture repo
 * (replayed from `<cassette>/idea.json`), then `runCompose` runs the plan, each task through the
 * iterate lane with its own part of the cassette folder (`T1.json` …), and Verify and Review. Each
 * re-plan question takes the next of `input.answers` ("yes" approves); none left declines, like
 * `--no-input`. The planner's, every review's and every re-plan's gateway are built here so their
 * unused answers are reported; each task's gateway is the compose lane's own, which reports its
 * part's leftovers through `onUnusedAnswers`.
 */
export async function runComposeScenario(
  scenario: Scenario,
  ctx: Omit<RunContext, "gateway"> & { mode: PlaygroundMode; cassetteDir: string; env?: NodeJS.ProcessEnv },
): Promise<ComposeExecution> {
  const repo = createFixtureRepo(scenario.input.fixture);
  const dir = join(ctx.cassetteDir, ctx.mode === "record" ? scenario.name : scenario.cassette);
  const env = ctx.env ?? process.env;
  const gateways: (ModelGateway & CassetteConsumption)[] = [];
  const gateway = (part: string): ModelGateway & CassetteConsumption => {
    const g =
      ctx.mode === "live"
        ? createModelGateway({ mode: "live", model: ctx.model, env })
        : createModelGateway({
            mode: ctx.mode,
            model: ctx.model,
            cassettePath: join(dir, `${part}.json`),
            env,
          });
    gateways.push(g);
    return g;
  };
  const answers = [...(scenario.input.answers ?? [])];
  const taskUnused: Partial<Record<Role, number>> = {};
  // The review after re-plan n replays `review-r<n>.json`, as the compose lane names it.
  let approved = 0;
  let planDir: string | null = null;
  let error: string | null = null;
  try {
    const planner = gateway("idea");
    const idea = await runIdea({
      gateway: planner,
      repoRoot: repo,
      request: scenario.input.request,
      priorTurns: [],
    });
    await planner.flush();
    planDir = openPlanStore(repo, idea.result.id).dir;
    await runCompose(
      {
        repo,
        model: ctx.model,
        coder: ctx.coder,
        mode: ctx.mode,
        cassetteDir: dir,
        lane: { ...ctx.lane, ...scenario.input.lane },
        onProgress: (event) => ctx.onEvent?.(event),
        onReplan: async (_ask: ReplanAsk) => {
          const yes = /^y(es)?$/i.test(answers.shift() ?? "");
          if (yes) approved++;
          return yes;
        },
        reviewGateway: async () => gateway(approved === 0 ? "review" : `review-r${approved}`),
        replanGateway: async (n) => gateway(`replan-${n}`),
        // Each task's own part (`T2.json` …) is replayed by the lane's gateway: it reports leftovers.
        onUnusedAnswers: ({ unused }) => {
          for (const [role, n] of Object.entries(unused) as [Role, number][])
            taskUnused[role] = (taskUnused[role] ?? 0) + n;
        },
        ...(ctx.env ? { env: ctx.env } : {}),
      },
      idea.result.id,
    );
  } catch (e) {
    error = messageOf(e);
  }
  for (const g of gateways) await g.flush().catch(() => undefined);
  const unusedReplies: Partial<Record<Role, number>> = { ...taskUnused };
  for (const g of gateways)
    for (const [role, n] of Object.entries(g.unusedReplies()) as [Role, number][])
      unusedReplies[role] = (unusedReplies[role] ?? 0) + n;
  return {
    run: {
      scenario: scenario.name,
      repo,
      taskDir: null,
      worktree: null,
      planDir,
      routes: [],
      terminal: null,
      steps: [],
      error,
    },
    unusedReplies,
  };
}
