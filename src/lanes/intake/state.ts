import { MessagesValue, ReducedValue, StateSchema } from "@langchain/langgraph";
import { z } from "zod";
import { Route, RouteDecision } from "../../agents/router/router.js";

/** What a lane did with one message: `/runs` lists these, `/show <id>` opens the artifact. */
export const LaneResult = z.object({
  lane: Route,
  /** Task id (iterate), record id (insight, idea), "" for neither. */
  id: z.string(),
  /** Terminal verdict (iterate), "answered", "planned", "replied", "stopped" or "failed". */
  outcome: z.string(),
  summary: z.string(),
  artifact_path: z.string().nullable(),
  at: z.string(),
});
export type LaneResult = z.infer<typeof LaneResult>;

export const RouteRecord = RouteDecision.extend({ message: z.string(), at: z.string() });
export type RouteRecord = z.infer<typeof RouteRecord>;

/** The iterate lane paused with questions; the user's next message answers them. */
export const PendingQuestions = z.object({ task_id: z.string(), questions: z.array(z.string()) });
export type PendingQuestions = z.infer<typeof PendingQuestions>;

/** Continue an existing iterate task (after its questions were answered, or after /resume). */
export const ResumeTask = z.object({ task_id: z.string(), answer: z.string().nullable() });
export type ResumeTask = z.infer<typeof ResumeTask>;

/** The iterate lane handed the request over (promotion_handoff.json); the target lane picks it up. */
export const LaneHandoff = z.object({
  target: z.enum(["insight", "idea"]),
  request: z.string(),
  task_id: z.string(),
  /** promotion_handoff.json, relative to the repository root. */
  path: z.string(),
});
export type LaneHandoff = z.infer<typeof LaneHandoff>;

const appended = <T extends z.ZodType>(item: T) =>
  new ReducedValue(
    z.array(item).default(() => []),
    {
      inputSchema: z.array(item),
      reducer: (current: z.infer<T>[], next: z.infer<T>[]) => current.concat(next),
    },
  );

/**
 * One chat conversation, checkpointed per thread in `.devflow/state.sqlite`: its turns, the route
 * of every message and what each lane produced. Lane artifacts on disk stay the truth; this is
 * the conversation's memory of them.
 */
export const IntakeState = new StateSchema({
  messages: MessagesValue,
  routes: appended(RouteRecord),
  results: appended(LaneResult),
  pending: PendingQuestions.nullable().default(null),
  resume: ResumeTask.nullable().default(null),
  handoff: LaneHandoff.nullable().default(null),
});

export type IntakeStateValue = typeof IntakeState.State;
export type IntakeStateUpdate = typeof IntakeState.Update;
