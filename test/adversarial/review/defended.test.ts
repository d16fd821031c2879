/**
 * Attacks from the hostile review (session 11) that devflow withstands on current main: regression
 * coverage for routes the adversarial catalogue does not take (a nested repository, a runner
 * killed mid-run, a tracked runner shim, and the module under test writing devflow's record or the
 * coder's checkout during the seam run). Each entry's header comment in attacks.ts says which
 * defence holds. Runs with devflow's defaults on this machine (mount namespace on where it works).
 *
 *     npx vitest run test/adversarial/review/defended.test.ts
 */
import { beforeAll, describe, it } from "vitest";
import { catalogueTemplate } from "../catalogue/fixture.js";
import { limited, runEntry } from "../catalogue/run-entry.js";
import { DEFENDED } from "./attacks.js";

beforeAll(() => {
  catalogueTemplate();
});

describe.concurrent("attacks devflow withstands", () => {
  for (const b of DEFENDED)
    it(
      `[${b.issueClass}] ${b.name}: ${b.expect === "completes" ? "completes" : "is rejected"}`,
      () => limited(() => runEntry(b)),
      600_000,
    );
});
