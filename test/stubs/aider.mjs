#!/usr/bin/env node
// Stub of `aider --message-file <f> --yes-always ...`: plain text output, "Tokens: ... Cost: ..."
// lines, and exit 0 even on fatal API errors. Without --no-auto-commits it commits, as aider does.
import { readFileSync } from "node:fs";
import * as kit from "./stub-kit.mjs";

const argv = process.argv.slice(2);
if (kit.handleVersion("aider")) process.exit(0);
const stdin = await kit.readStdin();
const messageFile = kit.flagValue(argv, ["--message-file", "-f"]);
const message = messageFile ? readFileSync(messageFile, "utf8") : null;
kit.record({ stdin, message });
if (message === null) kit.fail("stub aider: only --message-file is stubbed", 2);
if (message.trim() === "") kit.fail("stub aider: empty message file", 2);
if (!kit.hasFlag(argv, "--yes-always")) {
  // Without --yes-always aider asks on the terminal; with stdin at EOF it gives up.
  kit.fail("EOFError: confirmation needed and no input", 1);
}
const say = (text) => process.stdout.write(`${text}\n`);
const autoCommit = !kit.hasFlag(argv, "--no-auto-commits");
const edit = () => {
  if (autoCommit) kit.commitEdit(process.cwd(), "aider");
  else kit.editFile(process.cwd(), "aider");
  say(`Applied edit to ${kit.EDIT_FILE}`);
};
const tokens = () => say("Tokens: 2.3k sent, 150 received. Cost: $0.01 message, $0.02 session.");

say("Aider v9.9.9-stub");
say("Model: stub-model with diff edit format");
switch (kit.scenario) {
  case "success":
    say("I will edit the file.");
    edit();
    tokens();
    break;
  case "commit":
    kit.commitEdit(process.cwd(), "aider");
    say(`Commit abc1234 aider: ${kit.EDIT_FILE}`);
    tokens();
    break;
  case "structured_failure":
    // Exit 0 after a fatal error: aider#5552.
    say("litellm.APIConnectionError: Connection error.");
    say("Unable to reach the model endpoint.");
    break;
  case "retried":
    say("litellm.RateLimitError: AnthropicException - rate limited");
    say("The API provider has rate limited you. Try again later or check your quotas.");
    say("Retrying in 0.2 seconds...");
    edit();
    tokens();
    break;
  case "auth":
    say("litellm.AuthenticationError: AnthropicException - invalid x-api-key");
    say("The API provider is not able to authenticate you. Check your API key.");
    break;
  case "rate_limit":
    say("litellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached");
    say("The API provider has rate limited you. Try again later or check your quotas.");
    break;
  case "nonzero_exit":
    kit.fail("aider: error: unrecognized arguments", 2);
    break;
  case "huge_output":
    await kit.writeMany(kit.hugeBytes(), (i) => `model says line ${i} ${"m".repeat(300)}\n`);
    edit();
    say("Done after a lot of output.");
    tokens();
    break;
  case "secret":
    say(`Using OPENAI_API_KEY=${kit.secretValue()}`);
    say(`the raw key: ${kit.secretValue()}`);
    edit();
    tokens();
    break;
  case "hang":
    kit.hang();
    break;
  default:
    kit.fail(`stub aider: unknown STUB_SCENARIO ${kit.scenario}`, 2);
}
