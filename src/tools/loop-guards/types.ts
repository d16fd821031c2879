/** The loops devflow's tool-using agents are guarded against (after junco's guards). */
export type GuardKind = "repeated_output" | "repeated_tool_call" | "tool_error_streak" | "output_budget";

/** A guard saw its loop: which one, and what it saw (told to the model and written to transcripts). */
export interface GuardTrip {
  kind: GuardKind;
  detail: string;
}

/** What the supervisor made of a trip: tell the model once, stop the run the next time. */
export interface GuardDecision extends GuardTrip {
  action: "nudge" | "stop";
  /** Model turns seen when the decision was made (1-based count of assistant messages). */
  modelCall: number;
}
