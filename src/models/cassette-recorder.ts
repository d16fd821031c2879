import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DevflowError } from "../errors/index.js";
import { writeFileDurablySync } from "../util/durable-write.js";
import { createRedactor } from "../util/redact.js";
import { CASSETTE_VERSION, type Cassette, type CassetteEntry, loadCassette } from "./cassette.js";
import { type CassetteCalls, ROLES, type Role } from "./contract.js";

/**
 * Collects live answers per role and rewrites the cassette after every call, so a run that
 * crashes halfway still leaves a usable cassette of everything answered so far; a resumed run
 * continues it (resumeFrom).
 */
export class CassetteRecorder {
  private readonly calls: Cassette["calls"] = {};
  private readonly redact: (text: string) => string;

  constructor(
    readonly path: string,
    knownSecrets: readonly string[],
  ) {
    this.redact = createRedactor(knownSecrets);
  }

  append(role: Role, entry: CassetteEntry): void {
    const entries = this.calls[role] ?? [];
    // Every string (content, tool arguments, structured answers) is scrubbed: a model can echo secrets.
    entries.push(
      JSON.parse(
        JSON.stringify(entry, (_key, value: unknown) =>
          typeof value === "string" ? this.redact(value) : value,
        ),
      ),
    );
    this.calls[role] = entries;
    this.write();
  }

  /** How many answers of each role the cassette holds so far. */
  cursor(): CassetteCalls {
    return Object.fromEntries(Object.entries(this.calls).map(([role, entries]) => [role, entries.length]));
  }

  /**
   * A resumed run appends to the cassette it was recording: per role, the cassette's first
   * `cursor[role]` answers (those the checkpointed nodes used) are kept and new answers follow
   * them. Answers on disk past the cursor were recorded by a node that had not finished when the
   * run stopped; that node runs again and records its new answer in their place, so the cassette
   * lines up with what a replay asks for (ADR 0035).
   */
  resumeFrom(cursor: CassetteCalls): void {
    const behind = ROLES.filter((role) => (this.calls[role]?.length ?? 0) < (cursor[role] ?? 0));
    if (behind.length === 0) return;
    const onDisk = existsSync(this.path) ? loadCassette(this.path).calls : {};
    for (const role of behind) {
      const need = cursor[role] ?? 0;
      const kept = onDisk[role] ?? [];
      if (kept.length < need)
        throw new DevflowError(
          "CASSETTE_INVALID",
          `cannot continue recording into cassette ${this.path}: it holds ${kept.length} answer(s) for role ${role}, but the task's checkpoint used ${need}; pass the cassette this task was recording to`,
        );
    }
    for (const role of ROLES) {
      const need = cursor[role] ?? 0;
      const have = this.calls[role]?.length ?? 0;
      if (have < need) this.calls[role] = (onDisk[role] ?? []).slice(0, need);
    }
    this.write();
  }

  write(): void {
    const cassette: Cassette = { version: CASSETTE_VERSION, calls: this.calls };
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      // Synchronous so that concurrent calls can never interleave two writes of the same file.
      writeFileDurablySync(this.path, `${JSON.stringify(cassette, null, 2)}\n`);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new DevflowError("CASSETTE_INVALID", `cannot write cassette ${this.path}: ${why}`);
    }
  }
}
