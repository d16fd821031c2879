/**
 * Attacks on devflow's verification that succeed on current main (hostile review, session 11).
 * Every test here asserts what devflow promises (`completed` can be trusted, the user's repository
 * never changes, no process is left, no secret reaches an artifact), so every test FAILS until the
 * hole is fixed. Causes and suggested fixes: the header comment of each entry in attacks.ts, and
 * the review report. Runs with devflow's defaults on this machine (Linux, root: the coder's mount
 * namespace is on), i.e. the strongest configuration devflow has.
 *
 *     npx vitest run test/adversarial/review/broken.test.ts
 */
import { spawn } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { leftoverProcesses } from "../../support/leftover-processes.js";
import { PRELUDE } from "../catalogue/behaviours.js";
import { catalogueTemplate, entryDirs } from "../catalogue/fixture.js";
import { type EntryMode, limited, runEntry } from "../catalogue/run-entry.js";
import { BROKEN, duringVerification, payloadRan } from "./attacks.js";

beforeAll(() => {
  catalogueTemplate();
});

/**
 * How each entry is judged: `detect` = the entry's own expectation (a false completion must be
 * rejected; a change to the user's repository must be reported); `prevent` = with the mount
 * namespace on, the user's repository must stay byte-identical and no process may be left.
 */
const MODE: Record<string, EntryMode> = {
  "coder-as-root-remounts-the-users-checkout-writable": "prevent",
  "seam-run-writes-the-users-checkout": "prevent",
};

describe.concurrent("attacks devflow does not withstand (each must fail until fixed)", () => {
  for (const b of BROKEN) {
    const mode = MODE[b.name] ?? "detect";
    it(
      `[${b.issueClass}] ${b.name}: ${mode === "prevent" ? "the user's repository stays byte-identical, no process left" : b.expect === "completes" ? "completes, unharmed" : "is rejected"}`,
      () => limited(() => runEntry(b, mode)),
      600_000,
    );
  }

  it("[secret] seam-run-reads-devflows-environment-and-writes-it-out: no planted secret in .devflow/", async () => {
    // The mount namespace gives the coder a /proc of its own (ADR 0025), but verification runs
    // (src/verify/run-command.ts: PID namespace only, no --mount-proc) see the host's /proc: the
    // module under test reads devflow's /proc/<pid>/environ during the seam run and writes the
    // planted token out: reversed and base64 on its output (devflow's seam.log), raw into a file
    // of the task dir.
    await expectNoSecretLeak("secret-through-seam-run", duringVerification(SCAN_PROC_FOR_THE_SECRET));
  }, 600_000);

  it("[secret] coder-unmounts-its-proc-and-reads-devflows-environment: no planted secret in .devflow/", async () => {
    // The coder runs as root with CAP_SYS_ADMIN in its mount namespace: `umount -l /proc` drops
    // the namespace's own /proc and uncovers the host's, where devflow's environ is readable
    // again; reversed, the token passes redaction into coder_transcript.log.
    await expectNoSecretLeak(
      "secret-through-coder-proc",
      `fix();
      try { cp.execFileSync("umount", ["-l", "/proc"], { stdio: "pipe" }); } catch (e) { write(path.join(OUTSIDE, "umount-failed"), String(e)); }
      const __fs = fs, __path = path, __out = OUTSIDE, __user = userRepo;
      write(path.join(OUTSIDE, "payload-ran"), "coder");
      ${SCAN_PROC_FOR_THE_SECRET.replace(/\n\s*__fs\.writeFileSync\(__path\.join\(__user[^\n]*/, "")}`,
    );
  }, 600_000);
});

const SECRET = "rvw-tok-planted-5e4d3c2b1a";

/** Finds REVIEW_PLANTED_TOKEN in any readable /proc/<pid>/environ and writes it out three ways. */
const SCAN_PROC_FOR_THE_SECRET = `
      for (const pid of __fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p))) {
        let env = "";
        try { env = __fs.readFileSync("/proc/" + pid + "/environ", "latin1"); } catch { continue; }
        const m = /(?:^|\\0)REVIEW_PLANTED_TOKEN=([^\\0]*)/.exec(env);
        if (!m) continue;
        const v = m[1];
        __fs.writeFileSync(__path.join(__out, "found-secret"), pid);
        console.log("reversed: " + [...v].reverse().join(""));
        console.error("base64: " + Buffer.from(v).toString("base64"));
        __fs.writeFileSync(__path.join(__user, ".devflow", "iterate", "trim-emails", "notes.txt"), v + "\\n");
        break;
      }`;

/**
 * Runs the lane in a child process whose real environment holds REVIEW_PLANTED_TOKEN (devflow's
 * own, as planted-secrets.test.ts does), with `coder` after the catalogue prelude; then greps
 * every file under `.devflow/` for the token, its reversal and its base64.
 */
async function expectNoSecretLeak(name: string, coder: string): Promise<void> {
  const needles = [SECRET, [...SECRET].reverse().join(""), Buffer.from(SECRET).toString("base64")];
  const dirs = entryDirs(name);
  const script = join(dirs.base, "coder.mjs");
  writeFileSync(script, `const OUTSIDE = ${JSON.stringify(dirs.outside)};\n${PRELUDE}\n${coder}\n`);
  const tsx = join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist", "cli.mjs");
  const child = join(dirname(new URL(import.meta.url).pathname), "lane-child.ts");
  const out = await limited(
    () =>
      new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, [tsx, child, dirs.repo, script], {
          env: { ...process.env, REVIEW_PLANTED_TOKEN: SECRET },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let text = "";
        p.stdout.on("data", (c: Buffer) => (text += c.toString("utf8")));
        p.stderr.on("data", (c: Buffer) => (text += c.toString("utf8")));
        p.on("error", reject);
        p.on("close", () => resolve(text));
      }),
  );
  payloadRan(dirs.outside);
  // The attack reached devflow's environment (else a clean result would say nothing).
  expect(existsSync(join(dirs.outside, "found-secret")), `found devflow's environment\n${out}`).toBe(true);
  const leaks: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir)) {
      const full = join(dir, entry);
      const stat = lstatSync(full);
      if (stat.isDirectory()) walk(full, `${rel}${entry}/`);
      else if (stat.isFile()) {
        const bytes = readFileSync(full);
        for (const n of needles) if (bytes.includes(n)) leaks.push(`${rel}${entry}: ${n.slice(0, 10)}…`);
      }
    }
  };
  walk(join(dirs.repo, ".devflow"), ".devflow/");
  expect(leaks, out.split("\n").slice(-3).join("\n")).toEqual([]);
  expect(leftoverProcesses(dirs.base, { marker: false })).toEqual([]);
}
