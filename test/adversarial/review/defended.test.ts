/**
 * Attacks from the hostile review (session 11) that devflow withstands on current main: regression
 * coverage for routes the adversarial catalogue does not take (a nested repository, a runner
 * killed mid-run, a tracked runner shim, and the module under test writing devflow's record or the
 * coder's checkout during the seam run), and the rows fixed since (6, 13, 15, ADR 0038: the coder
 * undoing its mount namespace, devflow's own files writable). Each entry's header comment in
 * attacks.ts says which defence holds. Runs with devflow's defaults on this machine (mount namespace on where it works).
 *
 *     npx vitest run test/adversarial/review/defended.test.ts
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { catalogueTemplate } from "../catalogue/fixture.js";
import { limited, runEntry } from "../catalogue/run-entry.js";
import { DEFENDED } from "./attacks.js";
import { expectNoSecretLeak, SCAN_PROC_FOR_THE_SECRET } from "./secret-leak.js";

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

  it("[secret] coder-unmounts-its-proc-and-reads-devflows-environment: no planted secret in .devflow/", async () => {
    // Was broken (review row 15): the coder ran as root with CAP_SYS_ADMIN in its mount namespace:
    // `umount -l /proc` dropped the namespace's own /proc and uncovered the host's, where devflow's
    // environ was readable again; reversed, the token passed redaction into coder_transcript.log.
    // Defended since ADR 0038 (no capability in the namespace): the umount is refused, the scan
    // finds only the namespace's own processes.
    const outside = await expectNoSecretLeak(
      "secret-through-coder-proc",
      `fix();
      try { cp.execFileSync("umount", ["-l", "/proc"], { stdio: "pipe" }); } catch (e) { write(path.join(OUTSIDE, "umount-failed"), String(e)); }
      const __fs = fs, __path = path, __out = OUTSIDE, __user = userRepo;
      write(path.join(OUTSIDE, "payload-ran"), "coder");
      ${SCAN_PROC_FOR_THE_SECRET.replace(/\n\s*__fs\.writeFileSync\(__path\.join\(__user[^\n]*/, "")}`,
      { reachesTheEnvironment: false },
    );
    expect(existsSync(join(outside, "umount-failed")), "umount was refused").toBe(true);
  }, 600_000);
});
