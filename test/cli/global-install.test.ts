/**
 * Regression: `npx devflow` worked only inside the clone and a global install was undocumented
 * (issue 11): the package shipped TypeScript run through tsx from src/, and nothing said which
 * files a package holds. Fix (ADR 0042): `files` ships bin/ and the built dist/ (with every run-time
 * asset), and the bin runs dist in process. This packs the real tarball (`npm pack`, the `files`
 * field applied) and lays it out as `npm install -g --prefix <dir>` does (<dir>/lib/node_modules/
 * devflow, <dir>/bin/devflow → its bin), then runs `devflow` from PATH in an unrelated directory.
 * Offline limit: npm cannot resolve the dependencies without the registry (or a cache holding
 * every packument), so the package's node_modules is a link to this checkout's, what npm would
 * have installed for the same lockfile.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/util/paths.js";

const scratch = mkdtempSync(join(tmpdir(), "devflow-global-install-"));
const prefix = join(scratch, "prefix");
const installed = join(prefix, "lib", "node_modules", "devflow");
const elsewhere = join(scratch, "elsewhere");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeAll(async () => {
  const freshness = (await import(join(PACKAGE_ROOT, "scripts", "build-freshness.mjs"))) as {
    staleBuild: (root: string) => string | null;
  };
  // The tarball ships dist/ as it is: it must be the current build (npm test builds first).
  expect(freshness.staleBuild(PACKAGE_ROOT)).toBeNull();
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", scratch], {
      cwd: PACKAGE_ROOT,
      encoding: "utf8",
    }),
  ) as { filename: string; files: { path: string }[] }[];
  const tarball = packed[0];
  if (tarball === undefined) throw new Error("npm pack made no tarball");
  packedFiles.push(...tarball.files.map((f) => f.path));
  mkdirSync(installed, { recursive: true });
  execFileSync("tar", ["-xzf", join(scratch, tarball.filename), "-C", installed, "--strip-components=1"]);
  symlinkSync(join(PACKAGE_ROOT, "node_modules"), join(installed, "node_modules"));
  mkdirSync(join(prefix, "bin"));
  symlinkSync(
    join("..", "lib", "node_modules", "devflow", "bin", "devflow.js"),
    join(prefix, "bin", "devflow"),
  );
  mkdirSync(elsewhere);
}, 120_000);

const packedFiles: string[] = [];
const devflow = (...args: string[]) =>
  spawnSync("devflow", args, {
    cwd: elsewhere,
    encoding: "utf8",
    env: { ...process.env, PATH: `${join(prefix, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}` },
  });

describe("the packed package, installed globally", () => {
  it("ships bin/ and dist/ with its run-time assets, no TypeScript sources and no build cache", () => {
    expect(packedFiles).toContain("bin/devflow.js");
    expect(packedFiles).toContain("dist/src/cli/main.js");
    expect(packedFiles).toContain("dist/src/agents/router/prompt.md");
    expect(packedFiles).toContain("dist/schemas/task_artifact.schema.json");
    expect(packedFiles).toContain("dist/scenarios/cassettes/demo.json");
    expect(packedFiles.filter((f) => f.endsWith(".ts") || f.includes("tsbuildinfo"))).toEqual([]);
    expect(existsSync(join(installed, "src"))).toBe(false);
  });

  it("devflow --help and --version run from PATH in another directory", () => {
    const help = devflow("--help");
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain("Usage: devflow");
    // The package's own version (one owner, src/util/version.ts; the CLI once hard-coded it).
    const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    expect(devflow("--version").stdout.trim()).toBe(version);
  });

  it("route --replay answers from a cassette with the installed prompts", () => {
    const cassette = join(installed, "dist", "scenarios", "cassettes", "devin_iterate_routing.json");
    const r = devflow("route", "--replay", cassette, "--json", "fix the csv import");
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: "result", decision: { route: "iterate" } });
  });

  it("the demo runs end to end from the installed package", () => {
    const r = devflow("demo", "--dir", join(scratch, "demo-repo"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/completed/);
    expect(readdirSync(join(scratch, "demo-repo"))).toContain("src");
  }, 180_000);
});
