import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import type { CassetteEntry } from "../../src/models/cassette.js";
import { TASK_ID, tempDir } from "./lane-harness.js";

/**
 * The confinement attack a model's run_command makes (the Observer's and the builtin coder's tests,
 * ADR 0031): the csv-import fixture with a committed `.gitignore` of `node_modules` and an ignored
 * `node_modules/left-pad`, and a command that writes the user's checkout, the task's artifacts, the
 * checkpoint database and the user's node_modules by absolute path, then leaves a `setsid` loop
 * writing `heartbeat`. `dirs`: what the caller removes afterwards (the repo's and heartbeat's
 * parents). `call`: the model turn that runs it.
 */
export function confinementAttack(heartbeatPrefix: string): {
  repo: string;
  heartbeat: string;
  call: CassetteEntry;
  dirs: string[];
} {
  const repo = createFixtureRepo("csv-import");
  writeFileSync(join(repo, ".gitignore"), "node_modules\n");
  mkdirSync(join(repo, "node_modules", "left-pad"), { recursive: true });
  writeFileSync(join(repo, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n");
  execFileSync("git", ["add", ".gitignore"], { cwd: repo });
  execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "ignore"], {
    cwd: repo,
  });
  const heartbeat = join(tempDir(heartbeatPrefix), "heartbeat");
  const home = join(repo, ".devflow");
  const attack = [
    `echo evil > ${repo}/src/csv-import.js`,
    `echo pwned > ${repo}/pwned.txt`,
    `echo '{}' > ${home}/iterate/${TASK_ID}/task_artifact.json`,
    `echo x >> ${home}/state.sqlite`,
    "echo evil > node_modules/left-pad/index.js",
    `setsid sh -c 'while :; do echo . >> ${heartbeat}; sleep 0.05; done' >/dev/null 2>&1 &`,
    "sleep 0.3; echo started",
  ].join("\n");
  const call: CassetteEntry = {
    content: "Checking the environment.",
    tool_calls: [{ name: "run_command", args: { command: attack } }],
    usage: { input_tokens: 100, output_tokens: 10 },
  };
  return { repo, heartbeat, call, dirs: [dirname(repo), dirname(heartbeat)] };
}
