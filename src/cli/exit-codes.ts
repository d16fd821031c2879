import type { Terminal } from "../artifacts/schemas/index.js";

/** Documented in the README; scripts rely on them. */
export const EXIT = {
  completed: 0,
  failure: 1,
  usage: 2,
  blockedOrNeedsContext: 3,
  exhausted: 4,
  handedOff: 5,
  /** Stopped by Ctrl-C (SIGINT), resumable: 128 + 2, as a shell reports it. */
  interrupted: 130,
  /** Stopped by SIGTERM, resumable: 128 + 15. */
  terminated: 143,
} as const;

export type ExitName = keyof typeof EXIT;

/** What each exit code means, in the words every command's help and the README use. */
export const EXIT_MEANINGS: Readonly<Record<ExitName, string>> = {
  completed: "completed",
  failure: "the run failed (checkpointed where a lane ran: --resume continues it)",
  usage: "usage or configuration error: fix the command line or the setup and run again",
  blockedOrNeedsContext: "blocked, or needs more context (the questions are printed)",
  exhausted: "attempts exhausted (the unverified work is kept on the branch)",
  handedOff: "promoted to idea or rerouted to insight",
  interrupted: "stopped by Ctrl-C (SIGINT); the resume command is printed",
  terminated: "stopped by SIGTERM, or by its reader closing stdout (`| head`); the resume command is printed",
};

export function exitCodeFor(verdict: Terminal["verdict"]): number {
  switch (verdict) {
    case "completed":
      return EXIT.completed;
    case "blocked":
    case "needs_more_context":
      return EXIT.blockedOrNeedsContext;
    case "exhausted":
      return EXIT.exhausted;
    case "promoted":
    case "rerouted":
      return EXIT.handedOff;
  }
}
