#!/usr/bin/env node
// Stub of JetBrains Junie CLI, headless contract of JetBrains' GitHub Action: task JSON on stdin
// (--input-format=json), result JSON in --json-output-file, JUNIE_HOME for its state.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as kit from "./stub-kit.mjs";

const argv = process.argv.slice(2);
if (kit.handleVersion("junie")) process.exit(0);

const stdin = await kit.readStdin();
// A custom profile must exist in JUNIE_HOME/models and its ${VAR} key must resolve, as Junie requires.
const model = kit.flagValue(argv, ["--model"]);
const profileFile = model?.startsWith("custom:")
  ? join(process.env.JUNIE_HOME ?? "", "models", `${model.slice(7)}.json`)
  : null;
const profile = profileFile && existsSync(profileFile) ? JSON.parse(readFileSync(profileFile, "utf8")) : null;
kit.record({ stdin, profile });
if (profileFile && !profile) kit.fail(`stub junie: unknown model profile ${model}`, 1);
const profileKey = /^\$\{(\w+)\}$/.exec(profile?.apiKey ?? "")?.[1];
if (profileKey && !process.env[profileKey])
  kit.fail(`stub junie: profile ${model} needs unset variable ${profileKey}`, 1);
if (
  kit.flagValue(argv, ["--output-format"]) !== "json" ||
  kit.flagValue(argv, ["--input-format"]) !== "json"
) {
  kit.fail("stub junie: expected --output-format=json --input-format=json", 2);
}
const outputFile = kit.flagValue(argv, ["--json-output-file"]);
if (!outputFile) kit.fail("stub junie: --json-output-file is required in this contract", 2);
let task;
try {
  task = JSON.parse(stdin).task;
} catch {
  kit.fail("stub junie: stdin is not the task JSON", 2);
}
if (typeof task !== "string" || task === "") kit.fail("stub junie: the input JSON has no task", 2);

const project = kit.flagValue(argv, ["--project", "-p"]) ?? process.cwd();
const write = (output) => writeFileSync(outputFile, JSON.stringify(output));
const ok = (result) =>
  write({
    sessionId: "stub-session",
    taskName: "stub task",
    result,
    errors: [],
    duration_ms: 5,
    changes: [{ path: kit.EDIT_FILE, before: "", after: "edited" }],
    llmUsage: [
      { model: "primary", calls: 2, cost: 0.01, inputTokens: 100, cacheInputTokens: 40, outputTokens: 20 },
      { model: "faster", calls: 1, cost: 0.005, inputTokens: 50, outputTokens: 5 },
    ],
  });

switch (kit.scenario) {
  case "success":
    kit.editFile(project, "junie");
    ok("Edited stub-edit.txt as asked.");
    break;
  case "commit":
    kit.commitEdit(project, "junie");
    ok("Edited and committed stub-edit.txt.");
    break;
  case "structured_failure":
    write({ sessionId: "s", result: "", errors: ["Tool call failed: could not apply patch"] });
    break;
  case "empty_result":
    write({ sessionId: "s", result: "Empty", errors: [] });
    break;
  case "auth":
    write({
      sessionId: "s",
      result: "",
      errors: ["authentication_failed: the JUNIE_API_KEY was rejected (401)"],
    });
    process.exit(1);
    break;
  case "rate_limit":
    write({ sessionId: "s", result: "", errors: ["rate_limit: 429 Too Many Requests"] });
    process.exit(1);
    break;
  case "nonzero_exit":
    kit.fail("stub junie: fatal: internal error", 3);
    break;
  case "huge_output":
    await kit.writeMany(kit.hugeBytes(), (i) => `junie progress line ${i} ${"x".repeat(200)}\n`);
    kit.editFile(project, "junie");
    ok("Done after a lot of output.");
    break;
  case "secret":
    process.stdout.write(`debug: using key ${kit.secretValue()}\n`);
    process.stderr.write(`env dump: JUNIE_API_KEY=${kit.secretValue()}\n`);
    kit.editFile(project, "junie");
    ok(`Done. (The key was ${kit.secretValue()})`);
    break;
  case "hang":
    kit.hang();
    break;
  default:
    kit.fail(`stub junie: unknown STUB_SCENARIO ${kit.scenario}`, 2);
}
