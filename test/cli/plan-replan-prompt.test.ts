/**
 * `devflow plan` on a real terminal (a pseudo-terminal): when T1's critic judges the plan invalid,
 * the run asks "Re-plan the remaining tasks … [y/N]" on the terminal; answering "n" stops the plan
 * with exit 3 and a report that says the re-plan was declined (ADR 0055 §11). The lane tests drive
 * the same decision through `onReplan`; this pins the CLI's prompt wiring (runPrompts in
 * src/cli/plan-run.ts). Needs the build (`npm run build`).
 */
import { spawn as spawnPty } from "@lydell/node-pty";
import { expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { PLAN_DEMO_REQUEST } from "../../src/fixtures/plan-demo.js";
import { planCassettes, planCoder, structuredOf } from "../support/compose-harness.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";
import { screenOf } from "../support/screen.js";

it("a PLAN_INVALID asks on the terminal; 'n' stops the plan with exit 3 and the report says it was declined", {
  timeout: 300_000,
}, async () => {
  const cassettes = planCassettes({
    T1: (c) => {
      structuredOf(c, "critic").plan_invalid = true;
    },
  });
  const repo = createFixtureRepo("csv-import");
  const args = [DEVFLOW_BIN, "plan", PLAN_DEMO_REQUEST, "-r", repo, "--yes", "--replay", cassettes];
  args.push("--coder", planCoder("repair"));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !["NO_COLOR", "FORCE_COLOR", "CI"].includes(k)) env[k] = v;
  const { code, raw, asked } = await new Promise<{ code: number; raw: string; asked: number }>(
    (resolve, reject) => {
      const term = spawnPty(process.execPath, args, {
        cols: 200,
        rows: 50,
        cwd: repo,
        env: { ...env, TERM: "xterm" },
      });
      let seen = "";
      let asked = 0;
      const timer = setTimeout(() => {
        term.kill();
        reject(new Error(`no end in time:\n${seen}`));
      }, 280_000);
      term.onData((text) => {
        seen += text;
        const prompts = seen.split("Re-plan the remaining tasks").length - 1;
        if (prompts > asked) {
          asked = prompts;
          term.write("n\r");
        }
      });
      term.onExit(({ exitCode }) => {
        clearTimeout(timer);
        resolve({ code: exitCode, raw: seen, asked });
      });
    },
  );
  const screen = screenOf(raw).join("\n");
  expect(asked, screen).toBe(1);
  expect(screen).toMatch(/T1's critic judged plan .* assumptions wrong/);
  expect(screen).toMatch(/Re-plan the remaining tasks \(re-plan 1 of 2\)\? \[y\/N\]/);
  expect(screen).toMatch(/re-planning was declined/);
  expect(screen).toMatch(/re-plan 1 \(T1's critic\): not approved/);
  expect(code, screen).toBe(3);
});
