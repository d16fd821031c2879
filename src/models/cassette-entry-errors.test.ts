// Bug pinned (issue 11, "Cassettes"): a replayed structured answer of the wrong shape went to its
// repair round, which found no next entry, so the run failed with "has no answer for role framer
// call #2" (exit 1) and the schema error was never shown. Fix: runStructuredCall turns a
// REPLAY_EXHAUSTED in the repair round into CASSETTE_INVALID naming the entry (role, call #n), the
// field and why.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, expect, it } from "vitest";
import { z } from "zod";
import { isDevflowError } from "../errors/index.js";
import { createModelGateway } from "./create-gateway.js";

const Framing = z.object({ title: z.string(), task_type: z.enum(["error_fix", "quick_change"]) });
const call = {
  role: "framer" as const,
  name: "task_framing",
  description: "Frame.",
  schema: Framing,
  messages: [new HumanMessage("frame this")],
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function cassette(calls: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-cassette-entry-"));
  dirs.push(dir);
  const path = join(dir, "c.json");
  writeFileSync(path, JSON.stringify({ version: 1, calls }));
  return path;
}

it("a wrong-shaped answer without a repair answer names the entry, the field and why (not 'no answer for call #2')", async () => {
  const path = cassette({
    framer: [
      { structured: { title: "ok", task_type: "error_fix" } },
      { structured: { title: 42, task_type: "bug" } },
    ],
  });
  const gateway = createModelGateway({ mode: "replay", cassettePath: path, env: {} });
  await gateway.structured(call);
  const failure = await gateway.structured(call).catch((e: unknown) => e);
  expect(isDevflowError(failure, "CASSETTE_INVALID"), String(failure)).toBe(true);
  const message = String((failure as Error).message);
  expect(message).toContain(`cassette ${path}: calls.framer[1] (framer call #2) does not fit task_framing:`);
  expect(message).toMatch(/title: [^;]*expected string/);
  expect(message).toMatch(/task_type: /);
  expect(message).toContain("framer call #3");
});

it("a scripted repair round still works: the invalid entry, then the valid one", async () => {
  const path = cassette({
    framer: [{ structured: { title: 42 } }, { structured: { title: "fixed", task_type: "quick_change" } }],
  });
  const gateway = createModelGateway({ mode: "replay", cassettePath: path, env: {} });
  expect(await gateway.structured(call)).toEqual({ title: "fixed", task_type: "quick_change" });
});
