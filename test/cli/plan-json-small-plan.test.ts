/**
 * `devflow plan --json` (ADR 0060) and the small-plan rule (ADR 0055 §8), through the real bin:
 * a plan of one task runs as one iterate request, the output says so, and stdout is event lines
 * then exactly one result line (schema ResultLine) with `plan.ran_as: "iterate"`. Without --yes,
 * --json never prompts: one error result line (BAD_OPTION, exit 2). Needs the build.
 */
import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { ResultLine } from "../../src/artifacts/schemas/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { PLAN_DEMO_REQUEST } from "../../src/fixtures/plan-demo.js";
import { planCassettes, planCoder, structuredOf } from "../support/compose-harness.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";

const run = (args: string[], cwd: string) => {
  const r = spawnSync(process.execPath, [DEVFLOW_BIN, ...args], { cwd, encoding: "utf8", timeout: 200_000 });
  const lines = r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string });
  return { code: r.status, err: r.stderr, lines };
};

it("a one-task plan runs as one iterate request, says so, and --json ends with one plan result line", {
  timeout: 240_000,
}, async () => {
  const cassettes = planCassettes({
    idea: (c) => {
      const plan = structuredOf(c, "idea") as { tasks: unknown[] };
      plan.tasks = plan.tasks.slice(0, 1);
    },
  });
  const repo = createFixtureRepo("csv-import");
  const base = [
    "plan",
    PLAN_DEMO_REQUEST,
    "-r",
    repo,
    "--replay",
    cassettes,
    "--coder",
    planCoder("repair"),
    "--json",
  ];

  const refused = run(base, repo);
  expect(refused.code, refused.err).toBe(2);
  expect(refused.lines).toHaveLength(1);
  expect(ResultLine.parse(refused.lines[0]).error?.code).toBe("BAD_OPTION");

  const { code, err, lines } = run([...base, "--yes"], repo);
  expect(code, err).toBe(0);
  expect(err).toMatch(/fewer than 3: running them as one iterate request \(task plan-.*\), not as compose/);
  expect(err).toMatch(/ran as one iterate request \(task plan-.*, not compose\): completed/);
  const results = lines.filter((l) => l.type === "result");
  expect(results).toHaveLength(1);
  expect(lines.at(-1)?.type).toBe("result");
  expect(lines.slice(0, -1).every((l) => l.type === "event")).toBe(true);
  const result = ResultLine.parse(lines.at(-1));
  expect(result.command).toBe("plan");
  expect(result.plan?.ran_as).toBe("iterate");
  expect(result.terminal?.verdict).toBe("completed");
  expect(result.task_id).toBe(`plan-${result.plan?.plan_id}`);
});
