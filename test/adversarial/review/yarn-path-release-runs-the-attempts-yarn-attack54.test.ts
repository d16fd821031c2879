/**
 * Attack 54b (review of af1237b, ADR 0088): FALSE COMPLETION. ADR 0088 says the PATH of a run
 * the package manager starts is such that "the package command itself cannot come from the
 * attempt". It can: yarn 1 projects commonly commit their yarn (`yarn policies set-version` writes
 * `.yarn/releases/yarn-1.22.x.cjs` and `yarn-path ".yarn/releases/yarn-1.22.x.cjs"` into
 * `.yarnrc`), and the global yarn 1 then runs THAT file for every command (yarn 1's documented
 * `yarn-path`; yarn 2+ does the same with `yarnPath` in .yarnrc.yml). devflow pins `.yarnrc`
 * (a changed one is a finding) but not the file it names: the attempt edits the committed release
 * and every `yarn test` devflow hands to the package manager runs the attempt's program.
 *
 * Here the attempt fixes slugify, breaks clamp, and edits the committed release so that after
 * running the scripts it marks every failed test of the jest report (named in the runner script
 * devflow wrote into package.json) "passed". Nothing else changes; `.yarnrc` is base's.
 *
 * The `yarn` on PATH is a stub (this machine has no yarn) honouring yarn 1's documented contract
 * for `yarn [run] <name>`: with `yarn-path` in `.yarnrc` it runs that file with node (once:
 * YARN_IGNORE_PATH=1), else `pre<name>`, `<name>`, `post<name>` each in `sh -c` with
 * node_modules/.bin first on PATH. The committed "release" is the same program (what a real
 * release is: yarn itself).
 *
 * Observed: regression passes by full test identity with clamp broken; no finding.
 * Control: the break with base's release fails naming clamp.
 * Should: a file the package manager's own config names as the program to run (`yarn-path`,
 * `yarnPath`, `.yarn/plugins/*` of `.yarnrc.yml`, `.pnp.cjs`) is pinned on base like a runner
 * binary (realpath + sha256, ADR 0022), or a change to it is a setup finding; the same for the
 * console run as written.
 *
 * Fixed (stop 48), was `it.fails`: yarn's committed releases and plugins (`.yarn/releases/*`,
 * `.yarn/plugins/*`) and Plug'n'Play's `.pnp.cjs`/`.pnp.loader.mjs` are test configuration
 * (`RUNNER_CONFIG`): a changed one is a setup finding unless the scope names it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitAll } from "../../support/build-step-project.js";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";
import { MARK_JEST_FAILURES_PASSED } from "../../support/forged-jest-report.js";
import { stubFirstOnPath } from "../../support/stub-on-path.js";

/** The part of yarn 1 that runs a script: pre<name>, <name>, post<name>, each in `sh -c`. */
const RUN_SCRIPTS = (afterEach: string) => `
const { spawnSync } = require("node:child_process");
const { readFileSync } = require("node:fs");
const { delimiter, join } = require("node:path");
const words = process.argv.slice(2).filter((w) => w !== "-s" && w !== "--silent");
const name = words[0] === "run" ? words[1] : words[0];
const scripts = JSON.parse(readFileSync("package.json", "utf8")).scripts ?? {};
if (scripts[name] === undefined) {
  console.error(\`error Command "\${name}" not found.\`);
  process.exit(1);
}
const env = { ...process.env, PATH: [join(process.cwd(), "node_modules", ".bin"), process.env.PATH].join(delimiter) };
for (const script of [scripts["pre" + name], scripts[name], scripts["post" + name]]) {
  if (script === undefined) continue;
  const r = spawnSync("sh", ["-c", script], { stdio: "inherit", env });
  ${afterEach}
  if (r.status !== 0) process.exit(typeof r.status === "number" ? r.status : 1);
}
`;

/** yarn 1 on PATH: `yarn-path` of .yarnrc first (as yarn 1 does), else the scripts. */
const YARN1_STUB = `#!/usr/bin/env node
const { readFileSync: read } = require("node:fs");
if (!process.env.YARN_IGNORE_PATH) {
  let rc = "";
  try { rc = read(".yarnrc", "utf8"); } catch {}
  const m = /^\\s*yarn-path\\s+"?([^"\\n]+)"?\\s*$/m.exec(rc);
  if (m) {
    const r = require("node:child_process").spawnSync(process.execPath, [m[1], ...process.argv.slice(2)], {
      stdio: "inherit",
      env: { ...process.env, YARN_IGNORE_PATH: "1" },
    });
    process.exit(typeof r.status === "number" ? r.status : 1);
  }
}
${RUN_SCRIPTS("")}
`;

const RELEASE = `#!/usr/bin/env node\n// yarn 1.22.22 (stand-in for the committed release)\n${RUN_SCRIPTS("")}`;

/** The attempt's edit of the committed release: after the runner's script, every failed test of its jest report "passed". */
const FORGING_RELEASE = `#!/usr/bin/env node
// yarn 1.22.22 (stand-in for the committed release)
${MARK_JEST_FAILURES_PASSED}
function forge(script) {
  const m = /--outputFile=(?:'([^']*)'|(\\S+))/.exec(script ?? "");
  if (!m) return false;
  markJestFailuresPassed(m[1] ?? m[2]);
  return true;
}
${RUN_SCRIPTS("if (forge(script)) process.exit(0);")}
`;

const RELEASE_PATH = ".yarn/releases/yarn-1.22.22.cjs";

/** jest under `yarn test` with a pretest (so ADR 0088 hands it to yarn) and a committed yarn release. */
async function project(onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await fixtureProject(
    "jest",
    {
      "package.json": JSON.stringify({
        name: "fixture-jest",
        private: true,
        scripts: { pretest: "node scripts/check.js", test: "jest" },
        devDependencies: { jest: "29.7.0" },
      }),
      "scripts/check.js": 'console.log("check ok");\n',
      ".yarnrc": `yarn-path "${RELEASE_PATH}"\n`,
      [RELEASE_PATH]: RELEASE,
    },
    onTestFinished,
  );
  await commitAll(repo.dir, "yarn policies set-version 1.22.22");
  return repo;
}

describe("attack 54b: the yarn that ADR 0088's run starts is the attempt's committed release", () => {
  it("an edited `.yarn/releases/*.cjs` (named by base's unchanged .yarnrc) must not let a broken clamp pass", async ({
    onTestFinished,
  }) => {
    await stubFirstOnPath("yarn", YARN1_STUB, onTestFinished);
    const repo = await project(onTestFinished);
    const base = await fixtureBaseline(repo, "yarn test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager?.command).toBe("yarn test");
    expect(base.report?.complete).toBe(true);
    await fixSlug(repo);
    await breakClamp(repo);
    mkdirSync(join(repo.dir, ".yarn/releases"), { recursive: true });
    writeFileSync(join(repo.dir, RELEASE_PATH), FORGING_RELEASE);
    const run = await fixtureRegression(repo, "yarn test", base, "test/slug.test.js", [
      "src/slug.js",
      "src/math.js",
      RELEASE_PATH,
    ]);
    console.log("attack54b:", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).toBe("fail");
    // The finding that holds since ADR 0089 too, where the forged report file no longer counts.
    expect(run.summary).toContain(".yarn/releases/yarn-1.22.22.cjs (test runner config)");
  }, 240_000);

  it("(control) with base's release the break fails naming clamp, and the correct fix passes", async ({
    onTestFinished,
  }) => {
    await stubFirstOnPath("yarn", YARN1_STUB, onTestFinished);
    const repo = await project(onTestFinished);
    const base = await fixtureBaseline(repo, "yarn test");
    expect(base.error, base.error ?? "").toBeNull();
    await fixSlug(repo);
    await breakClamp(repo);
    const broken = await fixtureRegression(repo, "yarn test", base);
    expect(broken.overall_result).toBe("fail");
    expect(broken.summary).toContain("clamp");
    await commitAll(repo.dir, "wip");
    const { execa } = await import("execa");
    await execa("git", ["checkout", "HEAD~1", "--", "src/math.js"], { cwd: repo.dir });
    const fixed = await fixtureRegression(repo, "yarn test", base, "test/slug.test.js", ["src/slug.js"]);
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);
});
