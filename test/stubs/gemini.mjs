#!/usr/bin/env node
// Stub of `gemini -p <prompt> --output-format json`: one pretty-printed JSON document on stdout
// ({response, stats, error?}) and the documented exit codes 42 (input), 53 (turn limit), 55 (untrusted).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as kit from "./stub-kit.mjs";

const argv = process.argv.slice(2);
if (kit.handleVersion("gemini")) process.exit(0);
const stdin = await kit.readStdin();
kit.record({ stdin });
const prompt = kit.flagValue(argv, ["-p", "--prompt"]);
const print = (doc) => process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
const failWith = (code, type, message) => {
  print({ error: { type, message, code } });
  process.exit(code);
};
if (!prompt) failWith(42, "Error", "No input provided via stdin or -p.");
if (kit.flagValue(argv, ["--output-format", "-o"]) !== "json")
  kit.fail("stub gemini: expected --output-format json", 2);
const trusted = kit.hasFlag(argv, "--skip-trust") || process.env.GEMINI_CLI_TRUST_WORKSPACE === "true";
if (!trusted)
  failWith(55, "FatalUntrustedWorkspaceError", "Gemini CLI is not running in a trusted directory.");

const settingsFile = join(process.env.GEMINI_CLI_HOME ?? "", ".gemini", "settings.json");
const settings = existsSync(settingsFile) ? JSON.parse(readFileSync(settingsFile, "utf8")) : {};
const stats = {
  models: {
    "gemini-2.5-pro": { api: { totalRequests: 2 }, tokens: { prompt: 150, candidates: 25, total: 175 } },
  },
};

switch (kit.scenario) {
  case "success":
    kit.editFile(process.cwd(), "gemini");
    print({ response: "Edited stub-edit.txt.", stats });
    break;
  case "commit":
    kit.commitEdit(process.cwd(), "gemini");
    print({ response: "Edited and committed.", stats });
    break;
  case "structured_failure":
    print({
      error: { type: "ApiError", message: "[API Error: 500 Internal error encountered.]", code: 500 },
      stats,
    });
    break;
  case "turn_limit":
    failWith(
      53,
      "FatalTurnLimitedError",
      `Reached max session turns (${settings.model?.maxSessionTurns ?? "?"}).`,
    );
    break;
  case "input_error":
    failWith(42, "FatalInputError", "Invalid input.");
    break;
  case "auth":
    failWith(1, "ApiError", "API key not valid. Please pass a valid API key. (400 INVALID_ARGUMENT)");
    break;
  case "rate_limit":
    failWith(1, "ApiError", "429 RESOURCE_EXHAUSTED: Quota exceeded");
    break;
  case "nonzero_exit":
    kit.fail("stub gemini: unexpected crash", 1);
    break;
  case "huge_output":
    process.stderr.write(`${"w".repeat(kit.hugeBytes())}\n`);
    kit.editFile(process.cwd(), "gemini");
    print({ response: "Done after a lot of output.", stats });
    break;
  case "secret":
    process.stderr.write(`GEMINI_API_KEY=${kit.secretValue()}\n`);
    kit.editFile(process.cwd(), "gemini");
    print({ response: `Done with ${kit.secretValue()}`, stats });
    break;
  case "hang":
    kit.hang();
    break;
  default:
    kit.fail(`stub gemini: unknown STUB_SCENARIO ${kit.scenario}`, 2);
}
