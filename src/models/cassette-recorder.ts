import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { DevflowError } from "../errors/index.js";
import { createRedactor } from "../util/redact.js";
import { CASSETTE_VERSION, type Cassette, type CassetteEntry } from "./cassette.js";
import type { Role } from "./contract.js";

/**
 * Collects live answers per role and rewrites the cassette after every call, so a run that
 * crashes halfway still leaves a usable cassette of everything answered so far.
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

  write(): void {
    const cassette: Cassette = { version: CASSETTE_VERSION, calls: this.calls };
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      // Synchronous so that concurrent calls can never interleave two writes of the same file.
      writeFileAtomic.sync(this.path, `${JSON.stringify(cassette, null, 2)}\n`);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new DevflowError("CASSETTE_INVALID", `cannot write cassette ${this.path}: ${why}`);
    }
  }
}
