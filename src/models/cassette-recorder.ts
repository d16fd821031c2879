import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { CASSETTE_VERSION, type Cassette, type CassetteEntry } from "./cassette.js";
import { ModelConfigError, type Role } from "./contract.js";
import { redactDeep } from "./redact.js";

/**
 * Collects live answers per role and rewrites the cassette after every call, so a run that
 * crashes halfway still leaves a usable cassette of everything answered so far.
 */
export class CassetteRecorder {
  private readonly calls: Cassette["calls"] = {};

  constructor(
    readonly path: string,
    private readonly knownSecrets: readonly string[],
  ) {}

  append(role: Role, entry: CassetteEntry): void {
    const entries = this.calls[role] ?? [];
    entries.push(redactDeep(entry, this.knownSecrets));
    this.calls[role] = entries;
    this.write();
  }

  write(): void {
    const cassette: Cassette = { version: CASSETTE_VERSION, calls: this.calls };
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      // Synchronous so that concurrent calls can never interleave two writes of the same file.
      writeFileAtomic.sync(this.path, `${JSON.stringify(cassette, null, 2)}\n`);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new ModelConfigError(`cannot write cassette ${this.path}: ${why}`);
    }
  }
}
