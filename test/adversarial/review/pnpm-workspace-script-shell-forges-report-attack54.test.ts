/**
 * Attack 54a (review of af1237b, ADR 0088): FALSE COMPLETION. Since ADR 0088 a `pnpm test` that
 * devflow cannot run as pnpm would (here: a `pretest`) runs THROUGH pnpm in the attempt's tree:
 * pnpm reads its settings from the checkout. devflow treats a changed `.npmrc`/`.yarnrc` as a
 * setup finding (isRunnerConfig), but since pnpm 10.6 "pnpm-workspace.yaml can now hold all the
 * settings that .npmrc accepts" (camelCase; pnpm 11 reads non-auth settings ONLY from there), and
 * pnpm-workspace.yaml is no runner config, no recipe (saysWhatTheTestCommandRuns), not in
 * configuresTests (so neither the seam tree nor ADR 0082's second run takes base's copy).
 *
 * The attempt fixes slugify, breaks clamp, and adds `pnpm-workspace.yaml` with
 * `scriptShell: ./tools/sh.js`. pnpm runs every script (the runner's included, the one devflow
 * rewrote to carry `--json --outputFile=<report>`) through that program, which runs the script
 * with /bin/sh, then rewrites the jest report it finds named in the script so every failed test
 * reads "passed", and exits 0.
 *
 * The pnpm on PATH is a stub (this machine has none) honouring pnpm >= 10.6's documented contract
 * for `pnpm [run] <name>`: settings from `.npmrc` (kebab-case) and `pnpm-workspace.yaml`
 * (camelCase, which wins); `pre<name>` only with enablePrePostScripts; each script run as
 * `<scriptShell or sh> -c <script>` with node_modules/.bin first on PATH.
 *
 * The same file's `nodeOptions` replaces devflow's NODE_OPTIONS for the scripts (ADR 0040's assert
 * freeze gone, as in attack 54d) and `enablePrePostScripts` decides whether base's pretest runs.
 * Before af1237b this project took the console path (attack 53a), where jest names no passing
 * test and every attempt failed; ADR 0088 makes the jest report count, and with it the forgery.
 *
 * Observed: regression passes ("no regressions ... by full test identity, jest report"), no finding.
 * Control: the same shell through `.npmrc` (`script-shell=./tools/sh.js`) IS a finding and fails;
 * the break without any shell fails naming clamp.
 * Should: a changed pnpm-workspace.yaml is a setup finding like `.npmrc` (add it, and
 * `.pnpmfile.cjs`, to RUNNER_CONFIG / configuresTests so the seam tree and ADR 0082's run take
 * base's copy), or the managed run puts base's copy of every package-manager settings file in
 * place for the run as withBaseScripts does for package.json's scripts.
 *
 * Fixed (stop 48), was `it.fails`: `pnpm-workspace.yaml` and `.pnpmfile.cjs` are test configuration
 * (`RUNNER_CONFIG` in src/verify/test-paths.ts): a changed one is a setup finding unless the scope
 * names it.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
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
import { pnpmFirstOnPath } from "../../support/pnpm-stub.js";

/** The attempt's "shell": runs the script with /bin/sh, then marks every failed test of the jest report passed. */
const FORGING_SHELL = `#!/usr/bin/env node
const { spawnSync } = require("node:child_process");
const script = process.argv[process.argv.indexOf("-c") + 1];
spawnSync("/bin/sh", ["-c", script], { stdio: "inherit" });
${MARK_JEST_FAILURES_PASSED}
const m = /--outputFile=(?:'([^']*)'|(\\S+))/.exec(script);
if (m) markJestFailuresPassed(m[1] ?? m[2]);
process.exit(0);
`;

const PACKAGE_JSON = JSON.stringify({
  name: "fixture-jest",
  private: true,
  scripts: { pretest: "node scripts/check.js", test: "jest" },
  devDependencies: { jest: "29.7.0" },
});

async function project(onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await fixtureProject(
    "jest",
    { "package.json": PACKAGE_JSON, "scripts/check.js": 'console.log("check ok");\n' },
    onTestFinished,
  );
  await commitAll(repo.dir, "pretest check");
  return repo;
}

function writeForgingShell(dir: string): void {
  mkdirSync(join(dir, "tools"), { recursive: true });
  writeFileSync(join(dir, "tools", "sh.js"), FORGING_SHELL);
  chmodSync(join(dir, "tools", "sh.js"), 0o755);
}

describe("attack 54a: pnpm's settings in pnpm-workspace.yaml reach the run ADR 0088 hands to pnpm", () => {
  it("a scriptShell set in pnpm-workspace.yaml that forges the jest report must not let a broken clamp pass", async ({
    onTestFinished,
  }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await project(onTestFinished);
    const base = await fixtureBaseline(repo, "pnpm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager?.command).toBe("pnpm test");
    await fixSlug(repo);
    await breakClamp(repo);
    writeForgingShell(repo.dir);
    writeFileSync(join(repo.dir, "pnpm-workspace.yaml"), "scriptShell: ./tools/sh.js\n");
    const run = await fixtureRegression(repo, "pnpm test", base, "test/slug.test.js", [
      "src/slug.js",
      "src/math.js",
      "pnpm-workspace.yaml",
      "tools/sh.js",
    ]);
    console.log("attack54a:", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).toBe("fail");
    // The finding that holds since ADR 0089 too, where the forged report file no longer counts.
    expect(run.summary).toContain("pnpm-workspace.yaml (test runner config)");
  }, 240_000);

  it("(control) the same shell through .npmrc is a finding; the break alone fails naming clamp", async ({
    onTestFinished,
  }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await project(onTestFinished);
    const base = await fixtureBaseline(repo, "pnpm test");
    expect(base.error, base.error ?? "").toBeNull();
    await fixSlug(repo);
    await breakClamp(repo);
    const plain = await fixtureRegression(repo, "pnpm test", base);
    expect(plain.overall_result).toBe("fail");
    expect(plain.summary).toContain("clamp");

    writeForgingShell(repo.dir);
    writeFileSync(join(repo.dir, ".npmrc"), "script-shell=./tools/sh.js\n");
    const viaNpmrc = await fixtureRegression(repo, "pnpm test", base, "test/slug.test.js", [
      "src/slug.js",
      "src/math.js",
      ".npmrc",
      "tools/sh.js",
    ]);
    expect(viaNpmrc.overall_result).toBe("fail");
    expect(viaNpmrc.summary).toContain(".npmrc");
  }, 240_000);
});
