import { join } from "node:path";
import { ArtifactStore } from "../artifacts/store.js";
import { recordRoot } from "./paths.js";
import { assertTaskId } from "./task-id.js";

/**
 * The artifact store of a plan (`.devflow/idea/<plan id>/`, beside its idea_brief.json): the compose
 * lane keeps its revisioned plan_run.json there (ADR 0055). The id is checked.
 */
export const openPlanStore = (repoRoot: string, planId: string): ArtifactStore =>
  new ArtifactStore(join(recordRoot(repoRoot, "idea"), assertTaskId(planId)));

/**
 * The iterate task id of a plan's task: deterministic, so a resumed plan reaches the same task
 * (and its own checkpoint) again. `T2` of plan `<id>` → `plan-<id>-t2`.
 */
export const planTaskId = (planId: string, planTaskRef: string): string =>
  assertTaskId(`plan-${planId}-${planTaskRef.toLowerCase()}`);
