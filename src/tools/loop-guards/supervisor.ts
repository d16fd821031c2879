import { NUDGES_PER_KIND } from "./thresholds.js";
import type { GuardDecision, GuardKind, GuardTrip } from "./types.js";

/**
 * junco's supervisor policy with a nudge budget of one per kind: the first trip of a kind is
 * answered with a nudge, the next trip of the same kind stops the run. (junco's 3-turn escalation
 * window only matters with a larger budget: with one nudge, any later trip exceeds it.)
 */
export class GuardSupervisor {
  private readonly nudges = new Map<GuardKind, number>();

  /** One decision per tripped kind; when any of them is a stop, only the stop (the run ends there). */
  decide(trips: readonly GuardTrip[], modelCall: number): GuardDecision[] {
    const byKind = new Map<GuardKind, GuardTrip>();
    for (const trip of trips) if (!byKind.has(trip.kind)) byKind.set(trip.kind, trip);
    const decisions = [...byKind.values()].map(
      (trip): GuardDecision => ({
        ...trip,
        action: (this.nudges.get(trip.kind) ?? 0) >= NUDGES_PER_KIND ? "stop" : "nudge",
        modelCall,
      }),
    );
    const stop = decisions.find((d) => d.action === "stop");
    if (stop !== undefined) return [stop];
    for (const d of decisions) this.nudges.set(d.kind, (this.nudges.get(d.kind) ?? 0) + 1);
    return decisions;
  }
}
