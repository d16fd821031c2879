/** One model answer of the builtin coder, as its run log records it. */
export interface LoggedAnswer {
  text: string;
  toolCalls: number;
  toolCallList: { name: string; args: unknown }[];
  usage: unknown;
}

/**
 * Where the builtin coder's agent reports as it runs (the coder backend's transcript implements
 * it): every model answer, tool result, guard decision and model error, in order.
 */
export interface CoderRunLog {
  assistant(answer: LoggedAnswer): void;
  record(entry: { type: string } & Record<string, unknown>): void;
}
