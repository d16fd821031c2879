import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ArtifactStore } from "../artifacts/index.js";
import { SeamEnvelope } from "../artifacts/schemas/index.js";
import { GuardName, type GuardTrip } from "../artifacts/schemas/ticket.js";
import { readTicketResult } from "./ticket-result.js";

export { GuardName, type GuardTrip };

/**
 * The guard trips of one finished change ticket, read from its task's artifacts (issue 12,
 * ADR 0054 amendment): the lane records every refusal in iterator_run.json and the attempt's
 * verifier envelopes, so the daemon counts what the record says instead of being told by the lane.
 * One trip per guard per attempt (an attempt whose scope check named five files tripped scope
 * once); a trip after the gate (the commit's tamper check, a coder process that outlived its run)
 * has no attempt.
 *
 * What is read, all of it devflow's own record (a coder cannot write the task dir, and an edit
 * there is itself the gate's tamper finding):
 * - `seam_integrity`, `scope`: that verifier's `fail` in the attempt's verifier_refs;
 * - `seam_canary`: the seam envelope's canary `tampered` (ADR 0028);
 * - `tamper`: a gate reason from the gate's tamper check (ADR 0018; the gate prefixes them
 *   `tamper: `, verifier reasons are prefixed with the verifier's name), or a terminal reason the
 *   commit node wrote for a change after the gate (`tamper: `, ADR 0023);
 * - `process_survived`: the terminal reason of a coder whose processes could not be ended.
 * No iterator_run.json (a read-only ticket, a run that ended before framing): no trips.
 */
export async function guardTripsOf(artifactDir: string | null): Promise<GuardTrip[]> {
  if (artifactDir === null) return [];
  // Absent: null; present but broken: ARTIFACT_INVALID, which the worker logs (nothing is counted).
  const run = await new ArtifactStore(artifactDir).read("iterator_run");
  if (!run) return [];
  const trips: GuardTrip[] = [];
  for (const attempt of run.attempts) {
    const at = (guard: GuardName) => trips.push({ guard, attempt_id: attempt.attempt_id });
    if (attempt.gate?.reasons.some((r) => r.startsWith(TAMPER))) at("tamper");
    for (const ref of attempt.verifier_refs) {
      if (ref.overall_result !== "fail") continue;
      if (ref.verifier === "seam_integrity") at("seam_integrity");
      if (ref.verifier === "scope") at("scope");
    }
    const seam = attempt.verifier_refs.find((r) => r.verifier === "seam");
    const envelope = seam ? await readJson(join(artifactDir, seam.path), SeamEnvelope) : null;
    if (envelope?.native_payload.canary?.status === "tampered") at("seam_canary");
  }
  const reason = run.terminal?.reason ?? "";
  if (reason.startsWith(TAMPER)) trips.push({ guard: "tamper", attempt_id: null });
  if (reason.startsWith("process_survived:")) trips.push({ guard: "process_survived", attempt_id: null });
  return trips;
}

/**
 * A finished change ticket's trips (`trips`, for its terminal record) and those its previous
 * terminal record did not hold yet (`fresh`, for the counter): a ticket retried after it ended
 * resumes its task and ends with the same artifacts, whose trips were counted then.
 */
export async function ticketGuardTrips(
  root: string,
  id: string,
  artifactDir: string | null,
): Promise<{ trips: GuardTrip[]; fresh: GuardTrip[] }> {
  const trips = await guardTripsOf(artifactDir);
  const seen = new Set(((await readTicketResult(root, id))?.guard_trips ?? []).map(tripKey));
  return { trips, fresh: trips.filter((t) => !seen.has(tripKey(t))) };
}

const TAMPER = "tamper: ";
const tripKey = (t: GuardTrip): string => `${t.guard} ${t.attempt_id ?? "-"}`;

/** A verifier envelope; null when absent or not that shape (the gate judged it already). */
async function readJson<T>(path: string, schema: { safeParse(v: unknown): { success: boolean; data?: T } }) {
  try {
    const parsed = schema.safeParse(JSON.parse(await readFile(path, "utf8")));
    return parsed.success ? (parsed.data ?? null) : null;
  } catch {
    return null;
  }
}
