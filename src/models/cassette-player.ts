import { type Cassette, type CassetteEntry, loadCassette } from "./cassette.js";
import { ROLES, type Role, replayExhaustedError } from "./contract.js";

/** Hands out a cassette's answers in order, one queue per role, and fails loudly when one runs dry. */
export class CassettePlayer {
  private readonly cursors = new Map<Role, number>();

  constructor(
    readonly path: string,
    private readonly cassette: Cassette,
  ) {}

  static load(path: string): CassettePlayer {
    return new CassettePlayer(path, loadCassette(path));
  }

  next(role: Role): { entry: CassetteEntry; callNumber: number } {
    const entries = this.cassette.calls[role] ?? [];
    const index = this.cursors.get(role) ?? 0;
    const entry = entries[index];
    const callNumber = index + 1;
    if (entry === undefined) {
      throw replayExhaustedError(
        role,
        callNumber,
        `cassette ${this.path} has no answer for role ${role} call #${callNumber} (it has ${entries.length})`,
      );
    }
    this.cursors.set(role, callNumber);
    return { entry, callNumber };
  }

  /** Entries not consumed yet, per role: a scenario that leaves some unused has drifted from its cassette. */
  unused(): Partial<Record<Role, number>> {
    const out: Partial<Record<Role, number>> = {};
    for (const role of ROLES) {
      const left = (this.cassette.calls[role]?.length ?? 0) - (this.cursors.get(role) ?? 0);
      if (left > 0) out[role] = left;
    }
    return out;
  }
}
