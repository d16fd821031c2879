import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TicketRecord } from "../../src/artifacts/schemas/ticket.js";
import { DROPPED_SETTLE_MS } from "../../src/daemon/fs-adopt.js";
import { startDevflow } from "../support/devflow-process.js";
import { errorAnswer, type OpenAIServer, startOpenAIServer } from "../support/openai-server.js";
import { queueFiles, waitFor } from "./daemon-harness.js";
import { type QueueSandbox, queueSandbox } from "./queue-harness.js";

/**
 * Issue 12: "Plan-lint: each lint case → failed/ with 0 model calls (the loopback server counts
 * them)". A real `devflow daemon` (the compiled CLI) runs live against a loopback
 * OpenAI-compatible server that records every request; each lint case is dropped into its inbox by
 * hand (the daemon adopts and lints it). Every case must end in failed/ naming its rule while the
 * server sees no request at all (no model call, not even a readiness probe). The control at the end,
 * one valid ticket, shows the daemon really talks to that server: it is probed at once.
 */
let box: QueueSandbox;
let server: OpenAIServer | undefined;
beforeEach(() => {
  box = queueSandbox();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  box.cleanup();
});

const KEY = "sk-test-plan-lint-0123456789abcdef";
const fence = (code: string, lang = "bash") =>
  `# Ticket\n\n## Verification\n\n\`\`\`${lang}\n${code}\n\`\`\`\n`;

/** [rule, frontmatter, body]: every plan-lint rule issue 12 names, and the grammar's own. */
const CASES: [string, string, string][] = [
  ["repo_not_git", "repo: ./not-a-repo", "Fix it.\n"],
  ["unknown_label", "labels: [urgent]", "Fix it.\n"],
  ["cd_in_verification", "priority: low", fence("npm ci\nnpm test && cd dist && ls")],
  ["not_before_unparseable", "not_before: 2026-02-30T10:00:00Z", "Fix it.\n"],
  ["unknown_key", "priority: high\ncolour: red", "Fix it.\n"],
  ["ticket_too_large", "priority: low", `# big\n${"x".repeat(2_000)}\n`],
  ["verification_fence_not_bash", "priority: low", fence("npm test", "sh")],
  ["frontmatter_unparseable", "priority: [high", "Fix it.\n"],
  ["invalid_field", "priority: urgent", "Fix it.\n"],
];

/** Writes a ticket into the inbox as a person would, old enough to be adopted at the next poll. */
function drop(name: string, text: string): void {
  const path = join(box.root, "queue", "inbox", name);
  writeFileSync(path, text);
  const at = new Date(Date.now() - DROPPED_SETTLE_MS - 1_000);
  utimesSync(path, at, at);
}

function failedRecords(): TicketRecord[] {
  return queueFiles(box, "failed").map(
    (name) =>
      JSON.parse(
        readFileSync(join(box.root, "data", "tickets", name.slice(0, -3), "ticket_record.json"), "utf8"),
      ) as TicketRecord,
  );
}

describe("plan-lint in a running daemon", () => {
  it("each lint case goes to failed/ naming its rule with 0 model calls; a valid ticket is probed", async () => {
    server = await startOpenAIServer([], { models: [errorAnswer(401, "Incorrect API key provided")] });
    mkdirSync(box.root, { recursive: true });
    writeFileSync(
      join(box.root, "config.json"),
      JSON.stringify({ max_ticket_bytes: 1_024, worker: { pollIntervalSeconds: 0.1, graceSeconds: 0 } }),
    );
    const daemon = startDevflow(["daemon"], {
      DEVFLOW_HOME: box.root,
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: KEY,
    });
    try {
      await waitFor("the daemon to start", () => daemon.stderr().includes("working on"), 60_000);
      for (const [rule, frontmatter, body] of CASES) drop(`${rule}.md`, `---\n${frontmatter}\n---\n${body}`);
      await waitFor(
        "every case in failed/",
        () => queueFiles(box, "failed").length === CASES.length || daemon.child.exitCode !== null,
        120_000,
      );
      const records = failedRecords();
      for (const [rule] of CASES) {
        const record = records.find((r) => r.lint.some((f) => f.rule === rule));
        expect(record, `${rule}: ${daemon.stderr()}`).toMatchObject({
          state: "failed",
          status: "lint_failed",
        });
      }
      await new Promise((r) => setTimeout(r, 500)); // a few more polls: still nothing asked
      expect(server.requests).toEqual([]);

      // The control: a valid ticket is eligible work, so the daemon probes this very server.
      const repo = box.repo("shop");
      drop("valid.md", `---\nrepo: ${JSON.stringify(repo)}\n---\nFix it.\n`);
      await waitFor("the probe", () => (server?.requests.length ?? 0) > 0, 60_000);
      expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
      expect(readdirSync(join(box.root, "queue", "inbox"))).toHaveLength(1); // the probe's 401: not claimed
    } finally {
      if (daemon.child.exitCode === null) daemon.child.kill("SIGTERM");
      expect(await daemon.exit, daemon.stderr()).toBe(0);
    }
  }, 180_000);
});
