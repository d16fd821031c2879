/**
 * Attacks from the hostile review (session 11) that devflow does NOT withstand yet: open holes,
 * listed in the threat model (docs/decisions/0021-threat-model.md, "Open after the session-11
 * review"). Each entry in attacks.ts `OPEN` states what devflow promises (rejected); this file pins,
 * positively, that the attack still succeeds today (the run ends `completed`, the attack's own
 * marker shows it ran, no process is left, the user's repository is byte-identical), so it is
 * honest about the hole and goes red the day a fix lands: then move the entry to `DEFENDED`. Run
 * with devflow's defaults here (mount namespace on): these attacks work inside it.
 *
 *     npx vitest run test/adversarial/review/open.test.ts
 */
import { beforeAll, describe, it } from "vitest";
import type { Rejected } from "../catalogue/behaviours.js";
import { catalogueTemplate } from "../catalogue/fixture.js";
import { limited, runEntry } from "../catalogue/run-entry.js";
import { OPEN } from "./attacks.js";

beforeAll(() => {
  catalogueTemplate();
});

describe.concurrent("OPEN: attacks that still break devflow (each test passes while the hole is open)", () => {
  for (const b of OPEN)
    it(
      `[${b.issueClass}] ${b.name}: still reaches completed (open hole; move to DEFENDED when fixed)`,
      () =>
        limited(() => {
          // Everything of the entry but what it says about the rejection devflow owes.
          const { expect: _promised, verdict: _v, reason: _r, verifier: _f, ...attack } = b as Rejected;
          return runEntry({ ...attack, expect: "completes" });
        }),
      600_000,
    );
});
