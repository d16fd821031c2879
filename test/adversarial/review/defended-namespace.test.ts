/**
 * Attacks from the hostile review (session 11) on the mount namespace itself and through
 * verification runs, with the namespace on (Linux, root: devflow's defaults here). Rows 6, 13, 15
 * (ADR 0038: the command keeps no capability; devflow's package, node_modules and HOME are
 * read-only), row 7 (ADR 0031: the module under test cannot write the user's checkout during the
 * seam run) and row 14 (ADR 0031: verification runs get a /proc of their own, so devflow's
 * environment is out of reach), and ADR 0040 (the checkout is an overlay: a test run that repairs
 * the source for the other tests, even one that puts the break back, fails by name).
 *
 *     npx vitest run test/adversarial/review/defended-namespace.test.ts
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { mountNamespaceWorks } from "../../../src/process/mount-namespace.js";
import { catalogueTemplate } from "../catalogue/fixture.js";
import { limited, runEntry } from "../catalogue/run-entry.js";
import { DEFENDED, DEFENDED_IN_NAMESPACE, duringVerification } from "./attacks.js";
import { expectNoSecretLeak, SCAN_PROC_FOR_THE_SECRET } from "./secret-leak.js";

beforeAll(() => {
  catalogueTemplate();
});

describe.runIf(mountNamespaceWorks()).concurrent("attacks on and through the mount namespace", () => {
  for (const b of DEFENDED_IN_NAMESPACE)
    it(
      `[${b.issueClass}] ${b.name}: ${b.expect === "completes" ? "completes" : "is rejected"}`,
      () => limited(() => runEntry(b)),
      600_000,
    );

  it("[7] seam-run-writes-the-users-checkout: the write is refused, the user's repository stays byte-identical", async () => {
    // Was detected only (review row 7): verification runs had a PID namespace but no mount
    // namespace, so the module under test wrote the user's checkout during the seam run. Fixed by
    // ADR 0031: the write fails with EROFS; the fix itself is judged on its merits.
    const entry = DEFENDED.find((b) => b.name === "seam-run-writes-the-users-checkout");
    if (!entry) throw new Error("entry missing from attacks.ts");
    const outside = await limited(async () => {
      let where = "";
      await runEntry(
        {
          ...entry,
          check: (_run, out) => {
            where = out;
          },
        },
        "prevent",
      );
      return where;
    });
    const error = join(outside, "payload-error");
    expect(existsSync(error) ? readFileSync(error, "utf8") : "", "the write was tried and refused").toMatch(
      /EROFS/,
    );
  }, 600_000);

  it("[secret] seam-run-reads-devflows-environment-and-writes-it-out: no planted secret in .devflow/", async () => {
    // Was broken (review row 14): verification runs saw the host's /proc and the module under test
    // read devflow's /proc/<pid>/environ during the seam run, writing the planted token out
    // reversed and in base64 (past redaction) into seam.log. Fixed by ADR 0031 (--mount-proc).
    await expectNoSecretLeak("secret-through-seam-run", duringVerification(SCAN_PROC_FOR_THE_SECRET), {
      reachesTheEnvironment: false,
    });
  }, 600_000);

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
