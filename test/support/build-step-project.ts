import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";

/**
 * The mocha fixture (test/fixtures/runners/mocha) turned into a project with a build step, as
 * TypeScript or bundled projects are: a `pretest` writes what the tests load (ADR 0085's tests and
 * the attack-49 review).
 */

/** A build that copies src/ to `out`, as `tsc` or a bundler would write it. */
export const copyBuildScript = (out = "dist"): string => `const fs = require("node:fs");
fs.mkdirSync(${JSON.stringify(out)}, { recursive: true });
for (const f of fs.readdirSync("src")) fs.copyFileSync("src/" + f, ${JSON.stringify(`${out}/`)} + f);
`;

/** The mocha fixture's package.json with `scripts`. */
export const mochaPackageJson = (scripts: Record<string, string>): string =>
  JSON.stringify({ name: "fixture-mocha", private: true, scripts, devDependencies: { mocha: "10.8.2" } });

/** Points the fixture's tests at `folder` (the build's output) instead of src/. */
export async function testsLoadFrom(dir: string, folder: string): Promise<void> {
  for (const file of ["test/math.test.js", "test/slug.test.js"]) {
    const path = join(dir, file);
    await writeFile(path, (await readFile(path, "utf8")).replaceAll("../src/", `../${folder}/`));
  }
}

/** Commits everything in `dir` as a user would. */
export async function commitAll(dir: string, message: string): Promise<void> {
  await execa("git", ["add", "-A"], { cwd: dir });
  await execa("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", message], {
    cwd: dir,
  });
}
