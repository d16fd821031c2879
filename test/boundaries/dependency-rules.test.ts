import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/util/paths.js";

/**
 * The import rules of .dependency-cruiser.cjs (ADR 0015), run by the real depcruise on a small
 * tree laid out like devflow's: a clean tree passes, and each planted bad import is reported by
 * the rule that forbids it.
 */
const run = promisify(execFile);
const DEPCRUISE = join(PACKAGE_ROOT, "node_modules", ".bin", "depcruise");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-depcruise-"));
  dirs.push(dir);
  copyFileSync(join(PACKAGE_ROOT, ".dependency-cruiser.cjs"), join(dir, ".dependency-cruiser.cjs"));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true } }),
  );
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

async function cruise(dir: string): Promise<{ violations: Violation[] }> {
  const args = ["src", "scenarios", "evals", "playground", "test", "--config", ".dependency-cruiser.cjs"];
  try {
    const { stdout } = await run(DEPCRUISE, [...args, "--output-type", "json"], { cwd: dir });
    return JSON.parse(stdout).summary;
  } catch (error) {
    // depcruise exits non-zero when it finds errors; the JSON report is still on stdout.
    const stdout = (error as { stdout?: string }).stdout ?? "";
    if (!stdout) throw error;
    return JSON.parse(stdout).summary;
  }
}

const CLEAN: Record<string, string> = {
  "src/util/paths.ts": "export const ROOT = '.';\n",
  "src/errors/index.ts": "export class DevflowError extends Error {}\n",
  "src/artifacts/store.ts":
    "import { ROOT } from '../util/paths.js';\nimport { DevflowError } from '../errors/index.js';\nexport const store = [ROOT, DevflowError];\n",
  "src/agents/framer.ts": "import { store } from '../artifacts/store.js';\nexport const framer = store;\n",
  "src/lanes/iterate.ts": "import { framer } from '../agents/framer.js';\nexport const lane = framer;\n",
  "src/cli/main.ts":
    "import { lane } from '../lanes/iterate.js';\nimport { queue } from '../daemon/queue.js';\nexport const main = [lane, queue];\n",
  "src/daemon/queue.ts":
    "import { lane } from '../lanes/iterate.js';\nimport { store } from '../artifacts/store.js';\nexport const queue = [lane, store];\n",
  "src/index.ts": "export { lane } from './lanes/iterate.js';\n",
  "src/cli/main.test.ts":
    "import { helper } from '../../test/support/helper.js';\nexport const t = helper;\n",
  "test/support/helper.ts":
    "import { store } from '../../src/artifacts/store.js';\nexport const helper = store;\n",
  "scenarios/one.ts": "import { lane } from '../src/index.js';\nexport const scenario = lane;\n",
  "evals/grade.ts":
    "import type { scenario } from '../scenarios/one.js';\nexport type Graded = typeof scenario;\n",
  "playground/command.ts":
    "import { lane } from '../src/index.js';\nimport type { Graded } from '../evals/grade.js';\nexport const run = (g: Graded) => [lane, g];\n",
};

describe("the dependency-cruiser rules", () => {
  it("pass on a tree that keeps every boundary", async () => {
    expect((await cruise(tree(CLEAN))).violations).toEqual([]);
  }, 60_000);

  it("report each planted bad import by the rule that forbids it", async () => {
    const dir = tree({
      ...CLEAN,
      "src/cli/playground.ts": "import { run } from '../../playground/command.js';\nexport const p = run;\n",
      "playground/runner.ts": "import { main } from '../src/cli/main.js';\nexport const r = main;\n",
      "src/artifacts/bad.ts": "import { lane } from '../lanes/iterate.js';\nexport const b = lane;\n",
      "src/agents/bad.ts": "import { main } from '../cli/main.js';\nexport const a = main;\n",
      "src/lanes/bad.ts": "import { main } from '../cli/main.js';\nexport const l = main;\n",
      "src/errors/bad.ts": "import { store } from '../artifacts/store.js';\nexport const e = store;\n",
      "src/home/bad.ts": "import { framer } from '../agents/framer.js';\nexport const h = framer;\n",
      "src/verify/seam.ts": "import { lane } from '../lanes/iterate.js';\nexport const s = lane;\n",
      "src/agents/critic.ts": "import { s } from '../verify/seam.js';\nexport const c = s;\n",
      "src/daemon/bad.ts": "import { main } from '../cli/main.js';\nexport const d = main;\n",
      "src/lanes/uses-daemon.ts": "import { queue } from '../daemon/queue.js';\nexport const u = queue;\n",
      "src/util/ping.ts": "import type { Pong } from './pong.js';\nexport type Ping = { pong: Pong };\n",
      "src/util/pong.ts": "import type { Ping } from './ping.js';\nexport type Pong = { ping: Ping };\n",
    });
    const found = (await cruise(dir)).violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(found).toEqual(
      expect.arrayContaining([
        "src-stays-below-the-suite: src/cli/playground.ts → playground/command.ts",
        "suite-uses-the-public-entry: playground/runner.ts → src/cli/main.ts",
        "artifacts-are-a-leaf: src/artifacts/bad.ts → src/lanes/iterate.ts",
        "agents-below-lanes-and-cli: src/agents/bad.ts → src/cli/main.ts",
        "lanes-below-cli: src/lanes/bad.ts → src/cli/main.ts",
        "errors-are-a-leaf: src/errors/bad.ts → src/artifacts/store.ts",
        "home-below-workspace: src/home/bad.ts → src/agents/framer.ts",
        "verify-below-lanes: src/verify/seam.ts → src/lanes/iterate.ts",
        "agents-below-lanes-and-cli: src/agents/critic.ts → src/verify/seam.ts",
        "no-circular: src/util/ping.ts → src/util/pong.ts",
        "daemon-above-lanes: src/daemon/bad.ts → src/cli/main.ts",
        "only-the-cli-drives-the-daemon: src/lanes/uses-daemon.ts → src/daemon/queue.ts",
      ]),
    );
  }, 60_000);
});
