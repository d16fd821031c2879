import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { scenarioFiles } from "../../../scenarios/index.js";
import { registerPlayground } from "./playground.js";

interface Run {
  code: number | null;
  out: string;
  err: string;
  error: unknown;
}

/** `devflow playground …` on a program of its own, with captured output (program.ts wires it for users). */
async function playground(...argv: string[]): Promise<Run> {
  const run: Run = { code: null, out: "", err: "", error: null };
  const program = new Command().exitOverride();
  registerPlayground(program, {
    out: (t) => {
      run.out += t;
    },
    err: (t) => {
      run.err += t;
    },
    isTTY: false,
    setExitCode: (c) => {
      run.code = c;
    },
  });
  try {
    await program.parseAsync(["playground", ...argv], { from: "user" });
  } catch (error) {
    run.error = error;
  }
  return run;
}

const dirs: string[] = [];
function reportDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-playground-cli-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("devflow playground", () => {
  it("runs one scenario, prints the table and the closing line, writes both reports, exits 0", async () => {
    const dir = reportDir();
    const run = await playground("--scenario-name", "framer_task_framing", "--report", dir);
    expect(run.error).toBeNull();
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^scenario\s+criteria\s+verdict\s+time\s+tokens$/m);
    expect(run.out).toMatch(/^framer_task_framing\s+\d+\/\d+\s+pass\s/m);
    expect(run.out).toMatch(/1 scenario\(s\) in \d+\.\ds \(replay, concurrency 2\)/);
    expect(run.out.trimEnd().split("\n").at(-1)).toBe("1 passed, 0 failed");
    expect(run.err).toContain("✓ framer_task_framing");
    const json = JSON.parse(readFileSync(join(dir, "report.json"), "utf8"));
    expect(json.results.map((r: { name: string }) => r.name)).toEqual(["framer_task_framing"]);
    expect(readFileSync(join(dir, "report.md"), "utf8")).toContain("| framer_task_framing |");
  });

  it("exits 1 and names the failed criteria when a scenario fails (a coder that changes nothing)", async () => {
    const dir = reportDir();
    const run = await playground(
      "--scenario-name",
      "coder_bounded_fix",
      "--coder",
      "command:true",
      "--report",
      dir,
    );
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^coder_bounded_fix\s+\d+\/\d+\s+FAIL\s/m);
    expect(run.out).toContain("implements_targeted_fix:");
    expect(run.out.trimEnd().split("\n").at(-1)).toBe("0 passed, 1 failed");
    // A failed run is kept for inspection; the report says where.
    const kept = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")).results[0].keptAt;
    expect(kept).toMatch(/invite-acceptance$/);
    dirs.push(dirname(kept));
  });

  it("--json prints the report on stdout and the closing line on stderr", async () => {
    const run = await playground(
      "--scenario-name",
      "devin_iterate_routing",
      "--json",
      "--report",
      reportDir(),
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.out);
    expect(report).toMatchObject({ mode: "replay", passed: 1, failed: 0 });
    expect(report.results[0].evaluation.criteria.routes_feature_to_idea).toBe("pass");
    expect(run.err.trimEnd().split("\n").at(-1)).toBe("1 passed, 0 failed");
  });

  it("refuses an unknown scenario name, listing the known ones", async () => {
    const run = await playground("--scenario-name", "no_such_scenario");
    expect(String(run.error)).toMatch(
      /no scenario named "no_such_scenario"; known scenarios: devin_iterate_routing/,
    );
    expect(run.code).toBeNull();
  });

  it("refuses --live without a model endpoint before running anything", async () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
    try {
      const run = await playground("--live", "--coder", "command:true", "--report", reportDir());
      expect(String(run.error)).toMatch(/OPENAI_API_KEY/);
      expect(run.out).toBe("");
    } finally {
      if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
      if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
    }
  });

  it("--list names every scenario with its kind and group", async () => {
    const run = await playground("--list");
    expect(run.code).toBe(0);
    expect(run.out.trim().split("\n")).toHaveLength(scenarioFiles().length);
    expect(run.out).toMatch(/^coder_bounded_fix\s+coder\s+subagent$/m);
  });
});
