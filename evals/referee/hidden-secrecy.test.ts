import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { allScenarios } from "../../scenarios/index.js";
import { PACKAGE_ROOT } from "../../src/index.js";
import { HIDDEN_DIR, hiddenTests } from "./hidden-tests.js";

/**
 * A hidden acceptance test is only independent while no agent can see it: it must not be in a
 * fixture repo devflow works on, a prompt (src/**\/*.md), a cassette, a scripted coder or a
 * scenario definition (whose request and seeded task reach the agents). This checks every
 * distinctive literal of every hidden test against all of them.
 */
const SEEN_BY_AGENTS = ["scenarios/fixtures", "scenarios/cassettes", "scenarios/coders", "src"];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const agentVisible = [
  // From src/ only the prompts (markdown) reach an agent.
  ...SEEN_BY_AGENTS.flatMap((d) => filesUnder(join(PACKAGE_ROOT, d))).filter(
    (f) => !relative(PACKAGE_ROOT, f).startsWith("src/") || f.endsWith(".md"),
  ),
  ...readdirSync(join(PACKAGE_ROOT, "scenarios"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(PACKAGE_ROOT, "scenarios", f)),
].map((path) => ({ path, text: readFileSync(path, "utf8") }));

/**
 * What is specific to one hidden test: its string literals of 16 characters or more (test titles,
 * CSV inputs, expected summaries), not assertion boilerplate any test of the fixture shares.
 */
function distinctiveLiterals(source: string): string[] {
  return [...source.matchAll(/"((?:[^"\\\n]|\\.){16,})"/g)]
    .map((m) => m[1] ?? "")
    .filter((literal) => !literal.startsWith("../") && !literal.startsWith("node:"));
}

/**
 * The public contract a hidden test must use: the fixtures' own code (routes, exports) and the
 * users' requests (the copy they ask for). A literal found there is no secret.
 */
const scenarios = await allScenarios();
const contract = [
  ...filesUnder(join(PACKAGE_ROOT, "scenarios", "fixtures")).map((f) => readFileSync(f, "utf8")),
  ...scenarios.map((m) => m.scenario.input.request),
].join("\n");

const folders = readdirSync(HIDDEN_DIR).filter((f) => statSync(join(HIDDEN_DIR, f)).isDirectory());

describe("hidden acceptance tests stay hidden", () => {
  it("there are hidden tests, and the check reads agent-visible files of every kind", () => {
    expect(folders.length).toBeGreaterThanOrEqual(5);
    const kinds = new Set(agentVisible.map((f) => relative(PACKAGE_ROOT, f.path).split("/")[1]));
    expect([...kinds]).toEqual(expect.arrayContaining(["fixtures", "cassettes", "coders", "agents"]));
  });

  it.each(folders)(
    "scenarios/hidden/%s appears in no fixture, prompt, cassette, coder or scenario",
    (folder) => {
      const tests = Object.values(hiddenTests(folder));
      expect(tests.length).toBeGreaterThan(0);
      const secrets = tests.flatMap(distinctiveLiterals).filter((literal) => !contract.includes(literal));
      expect(secrets.length).toBeGreaterThan(0);
      const leaks: string[] = [];
      for (const secret of secrets) {
        for (const file of agentVisible)
          if (file.text.includes(secret)) leaks.push(`${relative(PACKAGE_ROOT, file.path)}: ${secret}`);
      }
      expect(leaks).toEqual([]);
    },
  );
});
