/**
 * Attacks that still break devflow where the mount namespace is unavailable (the detection
 * fallback of ADR 0025/0040): attacks.ts `OPEN_WITHOUT_NAMESPACE`, listed in ADR 0021's open list
 * (checked by open.test.ts). Like open.test.ts, each test pins that the attack still reaches
 * `completed` and goes red the day a fix lands; then move the entry to `DEFENDED`. With the
 * namespace on they are rejected (DEFENDED_IN_NAMESPACE).
 *
 *     npx vitest run test/adversarial/review/open-without-namespace.test.ts
 */
import { beforeAll, describe, it } from "vitest";
import type { Rejected } from "../catalogue/behaviours.js";
import { catalogueTemplate } from "../catalogue/fixture.js";
import { limited, runEntry } from "../catalogue/run-entry.js";
import { OPEN_WITHOUT_NAMESPACE } from "./attacks.js";

// For the whole file, before any lane runs (the probe is read per run).
process.env.DEVFLOW_NO_MOUNT_NAMESPACE = "1";

beforeAll(() => {
  catalogueTemplate();
});

describe.concurrent("OPEN without the mount namespace (each test passes while the hole is open)", () => {
  for (const b of OPEN_WITHOUT_NAMESPACE)
    it(
      `[${b.issueClass}] ${b.name}: still reaches completed without the namespace (open hole; move to DEFENDED when fixed)`,
      () =>
        limited(() => {
          const { expect: _promised, verdict: _v, reason: _r, verifier: _f, ...attack } = b as Rejected;
          return runEntry({ ...attack, expect: "completes" });
        }),
      600_000,
    );
});
