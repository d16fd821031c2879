#!/usr/bin/env node
// Stub of `opencode run --format json --dir <dir> <message>`: JSONL parts (step_start, text,
// step_finish{tokens,cost}, error) with no terminal event. A permission that resolves to "ask"
// hangs, as it does in the real `opencode run`.
import * as kit from "./stub-kit.mjs";

const argv = process.argv.slice(2);
if (kit.handleVersion("opencode")) process.exit(0);
if (argv[0] !== "run") kit.fail("stub opencode: only `opencode run` is stubbed", 2);
const stdin = await kit.readStdin();
kit.record({ stdin });
if (kit.flagValue(argv, ["--format"]) !== "json") kit.fail("stub opencode: expected --format json", 2);
const dir = kit.flagValue(argv, ["--dir"]) ?? process.cwd();
const message = argv[argv.length - 1];
if (!message || message.startsWith("--")) kit.fail("stub opencode: no message", 2);

// Edits resolve to "ask" unless the inline config allows them or --auto approves them.
let permission = {};
try {
  permission = JSON.parse(process.env.OPENCODE_CONFIG_CONTENT ?? "{}").permission ?? {};
} catch {
  kit.fail("stub opencode: OPENCODE_CONFIG_CONTENT is not JSON", 1);
}
const edit = typeof permission === "string" ? permission : (permission.edit ?? permission["*"] ?? "ask");
if (edit === "ask" && !kit.hasFlag(argv, "--auto")) {
  kit.markStarted();
  setInterval(() => {}, 1000);
} else {
  const emit = (event) =>
    process.stdout.write(`${JSON.stringify({ sessionID: "ses_stub", timestamp: Date.now(), ...event })}\n`);
  const text = (id, value) => emit({ type: "text", part: { id, type: "text", text: value } });
  const finish = () =>
    emit({
      type: "step_finish",
      part: {
        reason: "stop",
        cost: 0.002,
        tokens: { input: 80, output: 12, reasoning: 0, cache: { read: 0, write: 0 } },
      },
    });

  emit({ type: "step_start", part: { type: "step-start" } });
  switch (kit.scenario) {
    case "success":
      kit.editFile(dir, "opencode");
      emit({
        type: "tool_use",
        part: { tool: "write", callID: "c1", state: { status: "completed", input: {}, output: "ok" } },
      });
      text("t1", "Editing.");
      text("t2", "Edited stub-edit.txt.");
      finish();
      break;
    case "commit":
      kit.commitEdit(dir, "opencode");
      text("t1", "Edited and committed.");
      finish();
      break;
    case "structured_failure":
      // Exit 0 with an empty message: what opencode does after auto-rejecting a permission (#44267).
      emit({
        type: "tool_use",
        part: { tool: "bash", callID: "c1", state: { status: "error", error: "permission rejected" } },
      });
      finish();
      break;
    case "auth":
      emit({
        type: "error",
        error: { name: "ProviderAuthError", data: { providerID: "anthropic", message: "invalid x-api-key" } },
      });
      process.exit(1);
      break;
    case "rate_limit":
      emit({
        type: "error",
        error: { name: "APIError", data: { message: "Too Many Requests", statusCode: 429 } },
      });
      process.exit(1);
      break;
    case "nonzero_exit":
      kit.fail("stub opencode: Error: unexpected failure", 1);
      break;
    case "huge_output":
      await kit.writeMany(
        kit.hugeBytes(),
        (i) =>
          `${JSON.stringify({ type: "tool_use", part: { tool: "read", callID: `r${i}`, state: { status: "completed", output: "q".repeat(100 * 1024) } } })}\n`,
      );
      kit.editFile(dir, "opencode");
      text("t1", "Done after a lot of output.");
      finish();
      break;
    case "secret":
      process.stderr.write(`ANTHROPIC_API_KEY=${kit.secretValue()}\n`);
      kit.editFile(dir, "opencode");
      text("t1", `Done with ${kit.secretValue()}`);
      finish();
      break;
    case "hang":
      kit.hang();
      break;
    default:
      kit.fail(`stub opencode: unknown STUB_SCENARIO ${kit.scenario}`, 2);
  }
}
