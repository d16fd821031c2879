/**
 * The launcher and the compiled build (ADR 0042). Regression: `bin/devflow.js` spawned tsx, which
 * started a third node process, so signals reached the wrong process and every command paid a
 * TypeScript loader (issue 11). Fix: the bin imports dist/src/cli/main.js in its own process and
 * refuses a missing or stale build with one line naming `npm run build`. The build itself must find
 * every run-time asset (prompts, cassettes, scenario modules) from dist/ as the sources do from src/.
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";

const scratch = mkdtempSync(join(tmpdir(), "devflow-build-launcher-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A package checkout in miniature: the real launcher and freshness check, a one-file source tree. */
function miniCheckout(name: string): string {
  const root = join(scratch, name);
  for (const dir of ["bin", "scripts", "src"]) mkdirSync(join(root, dir), { recursive: true });
  copyFileSync(DEVFLOW_BIN, join(root, "bin", "devflow.js"));
  for (const file of readdirSync(join(PACKAGE_ROOT, "scripts")).filter((f) => f.startsWith("build-")))
    copyFileSync(join(PACKAGE_ROOT, "scripts", file), join(root, "scripts", file));
  writeFileSync(join(root, "src", "a.ts"), "export {};\n");
  return root;
}

/** A "build" whose main prints the pid it runs in, stamped at `stampedAt` (seconds). */
function build(root: string, stampedAt: number): void {
  mkdirSync(join(root, "dist", "src", "cli"), { recursive: true });
  writeFileSync(
    join(root, "dist", "src", "cli", "main.js"),
    "process.stdout.write('main in ' + process.pid);\n",
  );
  writeFileSync(join(root, "dist", ".build-stamp"), "");
  utimesSync(join(root, "dist", ".build-stamp"), stampedAt, stampedAt);
}

const run = (bin: string, args: string[], cwd = scratch) =>
  spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8" });

describe("bin/devflow.js", () => {
  it("refuses a missing build with one line saying to run npm run build", () => {
    const root = miniCheckout("missing");
    const r = run(join(root, "bin", "devflow.js"), ["--help"]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("the compiled build (dist/) is missing");
    expect(r.stderr).toContain("npm run build");
  });

  it("refuses a build older than a source file, naming the file", () => {
    const root = miniCheckout("stale");
    build(root, Date.now() / 1000 - 60);
    const r = run(join(root, "bin", "devflow.js"), ["--help"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/dist\/ is older than src\/a\.ts; run `npm run build`/);
  });

  it("runs a current build in its own process (no loader, no child process)", () => {
    const root = miniCheckout("current");
    build(root, Date.now() / 1000 + 60);
    const child = spawnSync(
      process.execPath,
      [
        "-e",
        `const c = require("node:child_process").spawn(process.execPath, [${JSON.stringify(join(root, "bin", "devflow.js"))}], { stdio: ["ignore", "pipe", "inherit"] }); let o = ""; c.stdout.on("data", (d) => (o += d)); c.on("exit", () => process.stdout.write(JSON.stringify({ pid: c.pid, o })));`,
      ],
      { encoding: "utf8" },
    );
    const { pid, o } = JSON.parse(child.stdout) as { pid: number; o: string };
    expect(o).toBe(`main in ${pid}`);
  });

  it("an installed package (no src/ beside dist/) runs dist without a freshness check", () => {
    const root = miniCheckout("installed");
    rmSync(join(root, "src"), { recursive: true });
    build(root, 0);
    const r = run(join(root, "bin", "devflow.js"), []);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^main in \d+$/);
  });
});

describe("the compiled build finds its run-time assets from dist/", () => {
  it("route --replay reads the router's prompt and a shipped cassette, from another directory", () => {
    const cassette = join(PACKAGE_ROOT, "scenarios", "cassettes", "devin_iterate_routing.json");
    const r = run(DEVFLOW_BIN, ["route", "--replay", cassette, "--json", "fix the csv import"]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: "result", decision: { route: "iterate" } });
  });

  it("playground --list discovers the compiled scenario modules", () => {
    const r = run(DEVFLOW_BIN, ["playground", "--list"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("devin_iterate_routing");
    expect(r.stdout.trim().split("\n").length).toBeGreaterThanOrEqual(20);
  });
});
