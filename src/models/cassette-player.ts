import { DevflowError } from "../errors/index.js";
import { type Cassette, type CassetteEntry, loadCassette } from "./cassette.js";
import { type CassetteCalls, ROLES, type Role, replayExhaustedError } from "./contract.js";

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
        this.path,
      );
    }
    this.cursors.set(role, callNumber);
    return { entry, callNumber };
  }

  /** How many answers of each role were handed out (or skipped by resumeFrom). */
  cursor(): CassetteCalls {
    return Object.fromEntries(this.cursors);
  }

  /**
   * A resumed run continues after the answers its checkpoint consumed: the nodes that used them
   * are not run again. Refuses a cursor past the cassette's end (not the cassette the task ran with).
   */
  resumeFrom(cursor: CassetteCalls): void {
    for (const role of ROLES) {
      const at = cursor[role] ?? 0;
      const have = this.cassette.calls[role]?.length ?? 0;
      if (at > have)
        throw new DevflowError(
          "CASSETTE_INVALID",
          `cassette ${this.path} has ${have} answer(s) for role ${role}, but the task's checkpoint has already consumed ${at}: resume with the cassette the task was replaying`,
        );
    }
    for (const role of ROLES) {
      const at = cursor[role] ?? 0;
      if (at > (this.cursors.get(role) ?? 0)) this.cursors.set(role, at);
    }
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
