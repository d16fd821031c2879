/**
 * The public entry of `src/` for the top-level scenarios/, evals/ and playground/ (ADR 0015):
 * they import from here and nowhere else in src/, so what they depend on is listed in one place
 * and `npm run lint:deps` keeps it that way. Tests under test/ may still reach internals.
 */

// Routing
export { type Route, type RouteDecision, routeMessage, type Turn } from "./agents/router/router.js";
// Artifacts: schemas, the revisioned store, validation
export * from "./artifacts/schemas/index.js";
export { ArtifactStore } from "./artifacts/store.js";
export { parseArtifact } from "./artifacts/validate.js";
// The CLI (npm run eval runs `devflow playground` through it)
export type { PlaygroundCommand, PlaygroundMode } from "./cli/commands/playground-entry.js";
export { processIO } from "./cli/io.js";
export { runCli } from "./cli/program.js";
// Coders
export { DEFAULT_CODER, resolveCoder } from "./coders/index.js";
// Bundled sample projects and the demo
export { createFixtureRepo, FIXTURES_DIR } from "./fixtures/create-fixture-repo.js";
export { DEMO_REQUEST } from "./fixtures/demo.js";
export { PLAN_DEMO_CODER_SCRIPT, PLAN_DEMO_REQUEST } from "./fixtures/plan-demo.js";
// The .devflow home: paths, stores
export { ensureDevflowDir, openPlanStore, openTaskStore, taskDir } from "./home/index.js";
// Lanes
export { runCompose } from "./lanes/compose/run.js";
export type { ComposeSettings, ReplanAsk } from "./lanes/compose/settings.js";
export { runIdea } from "./lanes/idea/run.js";
export type { IntakeEvent } from "./lanes/intake/events.js";
export { IntakeSession } from "./lanes/intake/session.js";
export type { LaneResult, RouteRecord } from "./lanes/intake/state.js";
export {
  buildIterateLane,
  type LaneSubset,
} from "./lanes/iterate/iterate-lane.js";
export { DEFAULT_LANE_OPTIONS, type LaneDeps, type LaneOptions } from "./lanes/iterate/lane/deps.js";
export { Reporter } from "./lanes/iterate/lane/reporter.js";
export { createRunRecord } from "./lanes/iterate/lane/run-record.js";
export type { QuestionsInterrupt } from "./lanes/iterate/nodes/ask.js";
export { iterateLane, runIterate } from "./lanes/iterate/run.js";
export type { IterateStateUpdate } from "./lanes/iterate/state.js";
export { answerLane, type IterateResult, type LaneOutcome, type NeedsAnswers } from "./lanes/outcome.js";
// Model gateway and cassettes
export { type Cassette, type CassetteEntry, loadCassette } from "./models/cassette.js";
export type { ModelGateway, Role, UsageSnapshot } from "./models/contract.js";
export { type CassetteConsumption, createModelGateway } from "./models/create-gateway.js";
// Paths and time
export { PACKAGE_ROOT } from "./util/paths.js";
export { nowIso } from "./util/time.js";
export { devflowVersion } from "./util/version.js";
// Verification and the workspace
export { checkSeamRedOnBase, hashSeamFiles } from "./verify/index.js";
export {
  createTaskWorktree,
  openVerifyCheckout,
  snapshotTree,
  type TaskWorkspace,
  taskWorktreePath,
} from "./workspace/index.js";
