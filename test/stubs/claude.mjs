#!/usr/bin/env node
// Stub of Claude Code in print mode: `-p --output-format stream-json --verbose`, prompt on stdin,
// one JSON event per line ending with a `result` event that carries is_error and total_cost_usd.
import * as kit from "./stub-kit.mjs";

const argv = process.argv.slice(2);
if (kit.handleVersion("claude")) process.exit(0);
if (process.env.CLAUDECODE)
  kit.fail("Error: Claude Code cannot be launched inside another Claude Code session.", 1);

const stdin = await kit.readStdin();
kit.record({ stdin });
if (!kit.hasFlag(argv, "-p") && !kit.hasFlag(argv, "--print"))
  kit.fail("stub claude: only print mode (-p) is stubbed", 2);
if (kit.flagValue(argv, ["--output-format"]) === "stream-json" && !kit.hasFlag(argv, "--verbose")) {
  kit.fail("Error: When using --print, --output-format=stream-json requires --verbose", 1);
}
if (stdin.trim() === "")
  kit.fail(
    "Error: Input must be provided either through stdin or as a prompt argument when using --print",
    1,
  );

const emit = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
const usage = {
  input_tokens: 100,
  output_tokens: 20,
  cache_read_input_tokens: 30,
  cache_creation_input_tokens: 10,
};
const result = (fields) =>
  emit({
    type: "result",
    subtype: "success",
    is_error: false,
    session_id: "stub",
    num_turns: 2,
    total_cost_usd: 0.0123,
    usage,
    ...fields,
  });

emit({ type: "system", subtype: "init", session_id: "stub", cwd: process.cwd() });
switch (kit.scenario) {
  case "success":
    kit.editFile(process.cwd(), "claude");
    emit({ type: "assistant", message: { content: [{ type: "text", text: "Editing the file." }] } });
    result({ result: "Edited stub-edit.txt." });
    break;
  case "commit":
    kit.commitEdit(process.cwd(), "claude");
    result({ result: "Edited and committed." });
    break;
  case "structured_failure":
    // A failed API call can arrive as subtype "success" with is_error true, and exit 0.
    result({ is_error: true, result: "API Error: 500 Internal server error" });
    break;
  case "turn_limit":
    result({ subtype: "error_max_turns", is_error: true, errors: ["Reached maximum number of turns (2)"] });
    process.exit(1);
    break;
  case "budget":
    result({ subtype: "error_max_budget_usd", is_error: true, errors: ["Reached maximum budget ($0.01)"] });
    process.exit(1);
    break;
  case "auth":
    result({ is_error: true, result: "Invalid API key · Please run /login", api_error_status: 401 });
    process.exit(1);
    break;
  case "rate_limit":
    result({ is_error: true, result: "API Error: Request rejected (429)", api_error_status: 429 });
    process.exit(1);
    break;
  case "nonzero_exit":
    kit.fail("stub claude: crashed", 1);
    break;
  case "huge_output": {
    // Long stream-json lines (bigger than a 64 KiB line buffer) and many of them.
    const big = "y".repeat(200 * 1024);
    await kit.writeMany(
      kit.hugeBytes(),
      () => `${JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: big }] } })}\n`,
    );
    kit.editFile(process.cwd(), "claude");
    result({ result: "Done after a lot of output." });
    break;
  }
  case "secret":
    emit({
      type: "assistant",
      message: { content: [{ type: "text", text: `The key is ${kit.secretValue()}` }] },
    });
    process.stderr.write(`ANTHROPIC_API_KEY=${kit.secretValue()}\n`);
    kit.editFile(process.cwd(), "claude");
    result({ result: `Done; key ${kit.secretValue()}` });
    break;
  case "hang":
    kit.hang();
    break;
  default:
    kit.fail(`stub claude: unknown STUB_SCENARIO ${kit.scenario}`, 2);
}
