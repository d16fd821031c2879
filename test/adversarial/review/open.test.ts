/**
 * Attacks from the hostile review (session 11) that devflow does NOT withstand yet: open holes,
 * listed in the threat model (docs/decisions/0021-threat-model.md, "Open after the session-11
 * review"). Each entry in attacks.ts `OPEN` states what devflow promises (rejected); this file pins,
 * positively, that the attack still succeeds today (the run ends `completed`, the attack's own
 * marker shows it ran, no process is left, the user's repository is byte-identical), so it is
 * honest about the hole and goes red the day a fix lands: then move the entry to `DEFENDED`. Run
 * with devflow's defaults here (mount namespace on). ADR 0040 closed the session-11 review's list;
 * the entries now are the second review's. "the open list" keeps attacks.ts (OPEN and
 * OPEN_WITHOUT_NAMESPACE, the latter pinned by open-without-namespace.test.ts while it has entries;
 * emptied by ADR 0048, refilled by the third review of the assertion ledger) and ADR 0021 in step.
 *
 *     npx vitest run test/adversarial/review/open.test.ts
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import type { Rejected } from "../catalogue/behaviours.js";
import { catalogueTemplate } from "../catalogue/fixture.js";
import { limited, runEntry } from "../catalogue/run-entry.js";
import { OPEN, OPEN_WITHOUT_NAMESPACE } from "./attacks.js";

beforeAll(() => {
  catalogueTemplate();
});

describe("the open list", () => {
  it("names exactly the attacks ADR 0021 lists as open (a fixed one leaves both)", () => {
    const adr = readFileSync(
      new URL("../../../docs/decisions/0021-threat-model.md", import.meta.url),
      "utf8",
    );
    const section = adr.slice(adr.indexOf("## Open after the session-11 review"));
    const named = [...section.matchAll(/\(`([a-z0-9-]+)`\)/g)].map((m) => m[1]).sort();
    expect(named).toEqual([...OPEN, ...OPEN_WITHOUT_NAMESPACE].map((b) => b.name).sort());
  });
});

// Declared only while the list holds attacks (an empty describe is an error in vitest).
if (OPEN.length > 0)
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
