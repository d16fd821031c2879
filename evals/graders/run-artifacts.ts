import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  ArtifactStore,
  CoderReport,
  DevflowEvent,
  type EnvelopeOf,
  type IteratorRun,
  Lesson,
  type ObservationArtifact,
  type PromotionHandoff,
  type RevisionedName,
  type TaskArtifact,
  VerifierEnvelope,
  type VerifierName,
} from "../../src/index.js";

/** An attempt's envelopes by verifier, each typed with its own payload schema. */
export type EnvelopesByVerifier = { [V in VerifierName]?: EnvelopeOf<V> };

export interface AttemptArtifacts {
  id: string;
  report: CoderReport | null;
  /** Every envelope that parsed, by its file name without .json (which should be its verifier). */
  envelopeByFile: Record<string, VerifierEnvelope>;
  /** The envelopes filed under their own verifier's name, typed per verifier. */
  envelopes: EnvelopesByVerifier;
  /** File names under verifiers/ ending in .json. */
  envelopeFiles: string[];
}

/**
 * Everything a run left in its task directory, read back through the ArtifactStore, so every JSON
 * file is checked against its published JSON Schema (ajv) on the way in. A file that fails to load
 * is not fatal here: it becomes a problem line, and the graders that need it fail.
 */
export interface RunArtifacts {
  dir: string | null;
  store: ArtifactStore | null;
  task: TaskArtifact | null;
  observation: ObservationArtifact | null;
  run: IteratorRun | null;
  handoff: PromotionHandoff | null;
  attempts: AttemptArtifacts[];
  lessons: Lesson[];
  events: DevflowEvent[];
  /** `<file>: <what is wrong>` for every artifact that exists but could not be read or validated. */
  problems: string[];
}

export async function loadRunArtifacts(taskDir: string | null): Promise<RunArtifacts> {
  const empty: RunArtifacts = {
    dir: taskDir,
    store: null,
    task: null,
    observation: null,
    run: null,
    handoff: null,
    attempts: [],
    lessons: [],
    events: [],
    problems: [],
  };
  if (!taskDir || !existsSync(taskDir)) return empty;
  const store = new ArtifactStore(taskDir);
  const problems: string[] = [];
  const attempt = async <T>(what: string, read: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      problems.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      return fallback;
    }
  };
  const revisioned = <N extends RevisionedName>(name: N) =>
    attempt(`${name}.json`, () => store.read(name), null);

  const attemptIds = await attempt("attempts/", () => store.listAttempts(), []);
  const attempts: AttemptArtifacts[] = [];
  for (const id of attemptIds) {
    const envelopeFiles = listJson(join(taskDir, "attempts", id, "verifiers"));
    const envelopeByFile: Record<string, VerifierEnvelope> = {};
    for (const file of envelopeFiles) {
      const envelope = await attempt(
        `attempts/${id}/verifiers/${file}`,
        () => store.readAttemptJson(id, `verifiers/${file}`, VerifierEnvelope),
        null,
      );
      if (envelope) envelopeByFile[file.replace(/\.json$/, "")] = envelope;
    }
    const report = await attempt(
      `attempts/${id}/coder_report.json`,
      () => store.readAttemptJson(id, "coder_report.json", CoderReport),
      null,
    );
    attempts.push({ id, report, envelopeByFile, envelopes: byVerifier(envelopeByFile), envelopeFiles });
  }

  return {
    dir: taskDir,
    store,
    task: await revisioned("task_artifact"),
    observation: await revisioned("observation_artifact"),
    run: await revisioned("iterator_run"),
    handoff: await revisioned("promotion_handoff"),
    attempts,
    lessons: await attempt("lessons.jsonl", () => store.readJsonl("lessons.jsonl", Lesson), []),
    events: await attempt("events.jsonl", () => store.readJsonl("events.jsonl", DevflowEvent), []),
    problems,
  };
}

function byVerifier(byFile: Record<string, VerifierEnvelope>): EnvelopesByVerifier {
  const out: EnvelopesByVerifier = {};
  const put = <V extends VerifierName>(e: EnvelopeOf<V>) => {
    (out as Record<V, EnvelopeOf<V>>)[e.verifier as V] = e;
  };
  for (const [name, e] of Object.entries(byFile)) if (e.verifier === name) put(e);
  return out;
}

function listJson(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
}
