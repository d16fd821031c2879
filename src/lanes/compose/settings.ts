import type { PlanRun } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import type { LaneOptions } from "../iterate/lane/deps.js";
import type { ProgressSink } from "../iterate/lane/reporter.js";
import type { ComposeLimits } from "./limits.js";

/** How the compose lane runs its tasks (each through the iterate lane) and its review. */
export interface ComposeSettings {
  /** A local git repository (plans do not run on a URL). */
  repo: string;
  model: string;
  coder: string;
  mode: "live" | "replay" | "record";
  /** Replay/record: the dir holding one cassette per part of the plan (`T1.json`, …, `review.json`). */
  cassetteDir?: string;
  lane?: Partial<LaneOptions>;
  limits?: Partial<ComposeLimits>;
  /** Every iterate task's node events. */
  onProgress: ProgressSink;
  /** Called with plan_run.json after every write (the CLI's checklist). */
  onPlan?: (run: PlanRun) => void;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** The review's model gateway (tests, playground); otherwise built from mode/model/cassetteDir. */
  reviewGateway?: () => Promise<ModelGateway>;
}
