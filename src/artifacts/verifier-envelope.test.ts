import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { envelopeFor, payloadFor } from "../../test/support/verifier-envelopes.js";

import { VerifierEnvelope, type VerifierName } from "./schemas/index.js";
import { ArtifactStore } from "./store.js";

/** Envelopes on disk are read through the per-verifier union: a payload must be its verifier's. */
describe("verifier envelopes on read", () => {
  let dir: string;
  let store: ArtifactStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "devflow-envelope-"));
    store = new ArtifactStore(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const put = (name: VerifierName, value: unknown) => {
    mkdirSync(join(dir, "attempts", "attempt-001", "verifiers"), { recursive: true });
    writeFileSync(join(dir, "attempts", "attempt-001", "verifiers", `${name}.json`), JSON.stringify(value));
  };
  const read = (name: VerifierName) =>
    store.readAttemptJson("attempt-001", `verifiers/${name}.json`, VerifierEnvelope);

  it("reads each verifier's own payload back, typed by verifier", async () => {
    for (const name of ["seam", "seam_integrity", "regression", "scope", "critic"] as const) {
      put(name, envelopeFor(name, "pass"));
      const e = await read(name);
      expect(e?.verifier).toBe(name);
      expect(e?.native_payload).toEqual(payloadFor(name, "pass"));
    }
  });

  it("refuses a payload of another verifier (a seam envelope carrying a critic payload)", async () => {
    put("seam", { ...envelopeFor("seam", "pass"), native_payload: payloadFor("critic", "pass") });
    await expect(read("seam")).rejects.toMatchObject({ code: "ARTIFACT_INVALID" });
  });

  it("refuses a payload with a field of the wrong type", async () => {
    put("seam", {
      ...envelopeFor("seam", "pass"),
      native_payload: { ...payloadFor("seam", "pass"), exit_code: "0" },
    });
    await expect(read("seam")).rejects.toThrow(/native_payload/);
  });

  it("refuses a verdict that stands on a payload of a run that gave none", async () => {
    // A critic pass with no judged criteria, a regression pass on a skip payload, an integrity
    // pass on the could-not-fingerprint payload: the schema shapes are fine, the claim is not.
    put("critic", { ...envelopeFor("critic", "pass"), native_payload: payloadFor("critic", "skipped") });
    await expect(read("critic")).rejects.toThrow(/judged criteria/);
    put("regression", {
      ...envelopeFor("regression", "pass"),
      native_payload: payloadFor("regression", "skipped"),
    });
    await expect(read("regression")).rejects.toThrow(/skip payload cannot back a pass/);
    // A changed test setup without a test command (stop 31) backs a fail and nothing else.
    const setup = { command: null, setup_findings: ["the attempt changed babel.config.js"] };
    put("regression", { ...envelopeFor("regression", "pass"), native_payload: setup });
    await expect(read("regression")).rejects.toThrow(/changed test setup can only back a fail/);
    put("regression", { ...envelopeFor("regression", "fail"), native_payload: setup });
    await expect(read("regression")).resolves.toMatchObject({ native_payload: setup });
    put("seam_integrity", { ...envelopeFor("seam_integrity", "fail"), native_payload: { files: [] } });
    await expect(read("seam_integrity")).rejects.toThrow(/fingerprints/);
  });

  it("refuses a skipped seam, scope or seam_integrity: only regression and critic may be skipped", async () => {
    put("seam", envelopeFor("seam", "skipped"));
    await expect(read("seam")).rejects.toThrow(/never skipped/);
    put("scope", envelopeFor("scope", "skipped"));
    await expect(read("scope")).rejects.toThrow(/never skipped/);
  });

  it("still reads the skip payloads older runs wrote as {}", async () => {
    put("regression", { ...envelopeFor("regression", "skipped"), native_payload: {} });
    expect((await read("regression"))?.overall_result).toBe("skipped");
    put("critic", { ...envelopeFor("critic", "skipped"), native_payload: {} });
    expect((await read("critic"))?.overall_result).toBe("skipped");
  });

  it("refuses to write an envelope whose payload does not match its verifier", async () => {
    await expect(
      store.writeAttemptJson("attempt-001", "verifiers/scope.json", VerifierEnvelope, {
        ...envelopeFor("scope", "pass"),
        native_payload: payloadFor("seam", "pass"),
      } as VerifierEnvelope),
    ).rejects.toThrow(/refusing to write/);
  });
});
