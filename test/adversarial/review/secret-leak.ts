/**
 * The planted-secret check of the hostile review (session 11): a lane run in a child process
 * whose own environment holds REVIEW_PLANTED_TOKEN, then every file under `.devflow/` grepped for
 * the token, its reversal and its base64. Returns the entry's dir outside the repository. Used by broken.test.ts and defended.test.ts.
 */
import { spawn } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { leftoverProcesses } from "../../support/leftover-processes.js";
import { PRELUDE } from "../catalogue/behaviours.js";
import { entryDirs } from "../catalogue/fixture.js";
import { limited } from "../catalogue/run-entry.js";
import { payloadRan } from "./attacks.js";

const SECRET = "rvw-tok-planted-5e4d3c2b1a";

/** Finds REVIEW_PLANTED_TOKEN in any readable /proc/<pid>/environ and writes it out three ways. */
export const SCAN_PROC_FOR_THE_SECRET = `
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
export async function expectNoSecretLeak(
  name: string,
  coder: string,
  attack: { reachesTheEnvironment: boolean } = { reachesTheEnvironment: true },
): Promise<string> {
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
  // Broken: the attack reached devflow's environment (else a clean result would say nothing).
  // Defended: it did not even get there.
  expect(existsSync(join(dirs.outside, "found-secret")), `found devflow's environment\n${out}`).toBe(
    attack.reachesTheEnvironment,
  );
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
  return dirs.outside;
}
