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
