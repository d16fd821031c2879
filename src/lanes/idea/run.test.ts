import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { replayGateway, useScratch } from "../../../test/chat/support/intake-fixtures.js";
import { type IdeaPlan, TaskType } from "../../artifacts/schemas/index.js";
import { parseArtifact } from "../../artifacts/validate.js";
import type { CassetteEntry } from "../../models/cassette.js";
import { runIdea } from "./run.js";

const fixture = useScratch().repo;
const gatewayFor = (idea: CassetteEntry[]) => replayGateway({ idea });

const PLAN: IdeaPlan = {
  title: "Contact import from several sources",
  problem: "Contacts can only be imported from one simple CSV format; duplicates are imported twice.",
  goals: ["Import from CSV with quoted cells", "Skip contacts whose email is already imported"],
  tasks: [
    {
      id: "T1",
      title: "Support quoted CSV cells",
      request: "parseCsv in src/csv-import.js splits on every comma; make it honour double-quoted cells.",
      task_type: "targeted_improvement",
      surface_hints: ["src/csv-import.js", "parseCsv"],
      success_criteria: ['importing \'"Smith, Ann",ann@example.com\' gives the name "Smith, Ann"'],
      depends_on: [],
    },
    {
      id: "T2",
      title: "Skip duplicate emails",
      request:
        "importContacts in src/csv-import.js imports the same email twice; reject the second as a duplicate.",
      task_type: "quick_change",
      surface_hints: ["importContacts"],
      success_criteria: ["a CSV with the same email twice imports it once and rejects the second line"],
      depends_on: ["T1"],
    },
  ],
  open_questions: ["Is the email comparison case-insensitive?"],
  risks: ["Quoted-cell parsing may change how existing files import"],
};

describe("runIdea", () => {
  it("writes a validated brief whose tasks are iterate-lane sized", async () => {
    const repo = fixture();
    const { result } = await runIdea({
      gateway: gatewayFor([{ structured: PLAN }]),
      repoRoot: repo,
      request: "Import contacts from several sources without duplicates",
      priorTurns: [{ role: "user", content: "our users have messy CSVs" }],
    });
    expect(relative(repo, result.artifactPath)).toBe(join(".devflow", "idea", result.id, "idea_brief.json"));
    const onDisk = parseArtifact("idea_brief", JSON.parse(readFileSync(result.artifactPath, "utf8")));
    expect(onDisk).toEqual(result.brief);
    expect(onDisk.tasks.map((t) => t.id)).toEqual(["T1", "T2"]);
    for (const task of onDisk.tasks) {
      expect(TaskType.options).toContain(task.task_type);
      expect(task.request.length).toBeLessThanOrEqual(800);
      expect(task.success_criteria.length).toBeGreaterThan(0);
    }
    expect(onDisk.request).toBe("Import contacts from several sources without duplicates");
    expect(onDisk.prior_turns).toEqual([{ role: "user", content: "our users have messy CSVs" }]);
    expect(onDisk.source_handoff).toBeNull();
    expect(result.id).toMatch(/^\d{8}-\d{6}-contact-import-from-several-sources$/);
  });

  it("repairs a plan whose task depends on a later one, using the validation error", async () => {
    const repo = fixture();
    const forward = structuredClone(PLAN);
    const [t1, t2] = forward.tasks;
    if (!t1 || !t2) throw new Error("plan lost its tasks");
    t1.depends_on = ["T2"];
    t2.id = "T7";
    const { result } = await runIdea({
      gateway: gatewayFor([{ structured: forward }, { structured: PLAN }]),
      repoRoot: repo,
      request: "Import contacts from several sources",
      priorTurns: [],
    });
    expect(result.brief.tasks.map((t) => [t.id, t.depends_on])).toEqual([
      ["T1", []],
      ["T2", ["T1"]],
    ]);
  });

  it("fails naming the idea role when the plan stays invalid", async () => {
    const tooBig = { ...PLAN, tasks: [{ ...PLAN.tasks[0], request: "x".repeat(801) }] };
    const run = runIdea({
      gateway: gatewayFor([{ structured: tooBig }, { structured: tooBig }]),
      repoRoot: fixture(),
      request: "Rewrite the importer",
      priorTurns: [],
    });
    await expect(run).rejects.toMatchObject({ code: "MODEL_NO_VALID_ANSWER" });
    await expect(run).rejects.toThrow(/idea/);
  });

  it("refuses an empty request", async () => {
    await expect(
      runIdea({ gateway: gatewayFor([]), repoRoot: fixture(), request: " \n", priorTurns: [] }),
    ).rejects.toThrow(/request is empty/);
  });
});
