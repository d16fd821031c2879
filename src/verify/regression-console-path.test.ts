/**
 * Regression: a test command judged from its console that names a local binary (`checkit`, as a
 * user's `--test-cmd ava` would) ended "`checkit` was not found" on base, so every attempt of the
 * task was rejected, a correct fix too.
 *
 * Cause: the console runs (base and attempt) ran the command with the caller's PATH, while the
 * report runs put devflow's bin directory and the checkout's `node_modules/.bin` first, as npm does.
 * Fix: both console runs go through `runOnConsole`, which gives them the report runs' PATH: devflow's
 * `node` first, then the installed binaries, but only when `node_modules` is devflow's link to the
 * user's install (a `node_modules` of the tree itself could hold a program an attempt committed).
 */
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RegressionEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import { installedBinDirs } from "./installed-bin-dirs.js";
import { runRegressionVerifier, takeRegressionBaseline } from "./regression.js";

let dir: string;
let checkout: string;
let install: string;

/** A test runner of the project's own: TAP lines for two checks of calc.mjs in the working directory. */
const CHECKIT = [
  "#!/usr/bin/env node",
  'const { pathToFileURL } = require("node:url");',
  'import(pathToFileURL(process.cwd() + "/calc.mjs").href).then(({ add, trim }) => {',
  '  console.log((add(2, 2) === 4 ? "ok" : "not ok") + " 1 - add works");',
  '  console.log((trim(" a ") === "a" ? "ok" : "not ok") + " 2 - trim strips spaces");',
  "});",
].join("\n");

async function executable(path: string, text: string): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, text);
  await chmod(path, 0o755);
}

const calc = (add: string, trim: string) =>
  writeFile(join(checkout, "calc.mjs"), `export const add = ${add};\nexport const trim = ${trim};\n`);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-console-path-"));
  checkout = join(dir, "checkout");
  install = join(dir, "user-repo", "node_modules");
  await mkdir(checkout, { recursive: true });
  await executable(join(install, ".bin", "checkit"), CHECKIT);
  await calc("(a, b) => a + b", "(s) => s");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const baseline = (command: string) =>
  takeRegressionBaseline({
    cwd: checkout,
    command,
    timeoutMs: 30_000,
    logPath: join(dir, "logs", "base.log"),
  });

const attempt = async (command: string, base: Awaited<ReturnType<typeof baseline>>) =>
  RegressionEnvelope.parse(
    await runRegressionVerifier({
      worktree: checkout,
      command,
      baseline: base,
      timeoutMs: 30_000,
      logPath: join(dir, "logs", "regression.log"),
      attemptId: "attempt-001",
    }),
  );

describe("a console-judged test command naming a binary of the user's install", () => {
  it("runs on base and on the attempt through devflow's link to the install: a fix passes, a break fails", async () => {
    await symlink(install, join(checkout, "node_modules"), "dir");
    const base = await baseline("checkit");
    expect(base.error).toBeNull();
    expect(base.tests).toEqual({ "add works": "pass", "trim strips spaces": "fail" });

    await calc("(a, b) => a + b", "(s) => s.trim()");
    expect((await attempt("checkit", base)).overall_result).toBe("pass");

    await calc("(a, b) => a - b", "(s) => s.trim()");
    const broken = await attempt("checkit", base);
    expect(broken.overall_result).toBe("fail");
    expect(broken.summary).toContain("add works");
  });

  it("runs devflow's node, not a `node` the install's .bin holds", async () => {
    await executable(
      join(install, ".bin", "node"),
      '#!/bin/sh\necho "ok 1 - add works"\necho "ok 2 - trim strips spaces"\n',
    );
    await symlink(install, join(checkout, "node_modules"), "dir");
    const base = await baseline("checkit");
    expect(base.tests).toEqual({ "add works": "pass", "trim strips spaces": "fail" });
  });

  it("leaves a node_modules of the tree itself off PATH, so a program committed there is not run", async () => {
    // Not devflow's link: a real folder inside the checkout, as a tree that tracks node_modules has.
    await executable(
      join(checkout, "node_modules", ".bin", "checkit"),
      '#!/bin/sh\necho "ok 1 - add works"\n',
    );
    const base = await baseline("checkit");
    expect(base.ran).toBe(false);
    expect(base.error).toContain("`checkit` was not found");
  });

  it("leaves off a link that stays inside the checkout", async () => {
    await executable(join(checkout, "vendored", ".bin", "checkit"), '#!/bin/sh\necho "ok 1 - add works"\n');
    await symlink(join(checkout, "vendored"), join(checkout, "node_modules"), "dir");
    const base = await baseline("checkit");
    expect(base.error).toContain("`checkit` was not found");
  });

  it("with the run's mounts, only a link to one of its dependency folders counts, not any link out of the checkout", async () => {
    const elsewhere = join(dir, "elsewhere", "node_modules");
    await mkdir(join(elsewhere, ".bin"), { recursive: true });
    await symlink(elsewhere, join(checkout, "node_modules"), "dir");
    const mounts = (path: string) => ({
      readOnly: dir,
      hide: join(dir, "home"),
      dependencies: [{ path, copyOnWrite: true }],
    });
    expect(installedBinDirs(checkout, mounts(install))).toEqual([]);
    expect(installedBinDirs(checkout, mounts(elsewhere))).toEqual([join(checkout, "node_modules", ".bin")]);
    // Without mounts (a caller outside the lane) a link out of the checkout is taken as the install.
    expect(installedBinDirs(checkout, undefined)).toEqual([join(checkout, "node_modules", ".bin")]);
  });
});
