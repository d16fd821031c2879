#!/usr/bin/env node
// Stub of `codex exec --json -C <dir>`: JSONL events (thread.started, item.completed,
// turn.completed / turn.failed / error) on stdout, last message to -o, state under CODEX_HOME.
import { writeFileSync } from "node:fs";
import * as kit from "./stub-kit.mjs";

const argv = process.argv.slice(2);
if (kit.handleVersion("codex-cli")) process.exit(0);
if (argv[0] !== "exec") kit.fail("stub codex: only `codex exec` is stubbed", 2);
// Like codex, stdin is read when it is not a TTY: an open pipe blocks here ("Reading additional input from stdin...").
const stdin = await kit.readStdin();
kit.record({ stdin });
if (!kit.hasFlag(argv, "--json")) kit.fail("stub codex: expected --json", 2);
const dir = kit.flagValue(argv, ["-C", "--cd"]);
if (!dir) kit.fail("stub codex: expected -C <dir>", 2);
const prompt = argv[argv.length - 1] === "-" ? stdin : argv[argv.length - 1];
if (!prompt) kit.fail("stub codex: no prompt", 2);

const emit = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
const lastMessage = kit.flagValue(argv, ["-o", "--output-last-message"]);
const agentMessage = (text) => {
  emit({ type: "item.completed", item: { id: "item_1", type: "agent_message", text } });
  if (lastMessage) writeFileSync(lastMessage, text);
};
const done = () =>
  emit({ type: "turn.completed", usage: { input_tokens: 120, cached_input_tokens: 20, output_tokens: 30 } });

emit({ type: "thread.started", thread_id: "stub-thread" });
emit({ type: "turn.started" });
switch (kit.scenario) {
  case "success":
    kit.editFile(dir, "codex");
    emit({
      type: "item.completed",
      item: { id: "item_0", type: "file_change", changes: [{ path: kit.EDIT_FILE, kind: "add" }] },
    });
    agentMessage("Edited stub-edit.txt.");
    done();
    break;
  case "commit":
    kit.commitEdit(dir, "codex");
    agentMessage("Edited and committed.");
    done();
    break;
  case "structured_failure":
    // The exit-0 failure: the turn failed but the process reports protocol health only.
    emit({ type: "error", message: "stream disconnected before completion" });
    emit({ type: "turn.failed", error: { message: "stream disconnected before completion" } });
    break;
  case "sandbox_failure":
    emit({
      type: "item.completed",
      item: {
        id: "item_0",
        type: "command_execution",
        command: "npm test",
        aggregated_output: "bwrap: Failed to make / slave: Permission denied",
        exit_code: 1,
        status: "failed",
      },
    });
    agentMessage("I could not run the tests.");
    done();
    break;
  case "auth":
    emit({ type: "error", message: "unexpected status 401 Unauthorized: Incorrect API key provided" });
    emit({
      type: "turn.failed",
      error: { message: "unexpected status 401 Unauthorized: Incorrect API key provided" },
    });
    process.exit(1);
    break;
  case "rate_limit":
    emit({
      type: "turn.failed",
      error: { message: "You've hit your usage limit. Try again later. (usage_limit_exceeded)" },
    });
    process.exit(1);
    break;
  case "nonzero_exit":
    kit.fail("Error: failed to initialize: config error", 1);
    break;
  case "huge_output":
    await kit.writeMany(
      kit.hugeBytes(),
      (i) =>
        `${JSON.stringify({ type: "item.completed", item: { id: `r${i}`, type: "reasoning", text: "z".repeat(4096) } })}\n`,
    );
    kit.editFile(dir, "codex");
    agentMessage("Done after a lot of output.");
    done();
    break;
  case "secret":
    process.stderr.write(`OPENAI_API_KEY=${kit.secretValue()}\n`);
    kit.editFile(dir, "codex");
    agentMessage(`Done with key ${kit.secretValue()}`);
    done();
    break;
  case "hang":
    kit.hang();
    break;
  default:
    kit.fail(`stub codex: unknown STUB_SCENARIO ${kit.scenario}`, 2);
}
