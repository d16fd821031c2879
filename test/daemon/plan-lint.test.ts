import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ajvCheck } from "../../src/artifacts/validate.js";
import { readDaemonConfig } from "../../src/daemon/daemon-config.js";
import { FsTicketQueue } from "../../src/daemon/fs-queue.js";
import { type QueueSandbox, queueSandbox } from "../support/queue-harness.js";

/**
 * Plan-lint (issue 12): each deterministic check sends a ticket straight to failed/ with the rule
 * and a one-line reason in its schema'd record; the ticket's bytes are kept exactly as submitted.
 */
let box: QueueSandbox;
afterEach(() => box.cleanup());

const VERIFY = (fence: string, code: string) =>
  `# Ticket\n\n## Verification\n\n\`\`\`${fence}\n${code}\n\`\`\`\n`;

async function submitCase(frontmatter: string, body?: string, config = {}) {
  const queue = box.queue(config);
  const path = box.ticket("case.md", frontmatter, body);
  const bytes = readFileSync(path);
  const result = await queue.submit(path, bytes);
  return { result, bytes, queue };
}

describe("plan-lint sends a ticket to failed/ naming the error", () => {
  const cases: [string, string, string | undefined, object, RegExp][] = [
    ["repo_not_git", "repo: ./not-a-repo", undefined, {}, /not-a-repo.*does not exist/],
    ["unknown_label", "labels: [urgent]", undefined, {}, /unknown label "urgent" \(known: none/],
    [
      "cd_in_verification",
      "priority: low",
      VERIFY("bash", "npm ci\nnpm test && cd dist && ls"),
      {},
      /line 10: cd/,
    ],
    ["not_before_unparseable", "not_before: 2026-02-30T10:00:00Z", undefined, {}, /not a UTC instant/],
    ["unknown_key", "priority: high\ncolour: red", undefined, {}, /unknown key colour/],
    [
      "ticket_too_large",
      "priority: low",
      `# big\n${"x".repeat(2_000)}\n`,
      { max_ticket_bytes: 1_024 },
      /cap of 1024/,
    ],
    ["verification_fence_not_bash", "priority: low", VERIFY("sh", "npm test"), {}, /```sh fence/],
    ["frontmatter_unparseable", "priority: [high", undefined, {}, /not valid YAML/],
    ["invalid_field", "priority: urgent", undefined, {}, /priority/],
  ];
  it.each(cases)("%s", async (rule, frontmatter, body, config, message) => {
    box = queueSandbox();
    const { result, bytes, queue } = await submitCase(frontmatter, body, config);
    expect(result.findings.map((f) => f.rule)).toContain(rule);
    expect(result.findings.find((f) => f.rule === rule)?.message).toMatch(message);
    const entry = await queue.get(result.id);
    expect(entry?.state).toBe("failed");
    expect(entry?.record?.status).toBe("lint_failed");
    expect(entry?.record?.lint).toEqual(result.findings);
    expect(entry?.record?.reason).toMatch(new RegExp(`^plan-lint: ${result.findings[0]?.rule}: `));
    // The record on disk is the schema'd JSON; the ticket is the submitted bytes, untouched.
    const recordFile = join(box.root, "data", "tickets", result.id, "ticket_record.json");
    expect(ajvCheck("ticket_record", JSON.parse(readFileSync(recordFile, "utf8")))).toEqual([]);
    const stored = readFileSync(join(box.root, "queue", "failed", `${result.id}.md`));
    expect(createHash("sha256").update(stored).digest("hex")).toBe(
      createHash("sha256").update(bytes).digest("hex"),
    );
    expect(entry?.record?.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
  });

  it("passes a clean ticket with a real repository, a known label, a UTC not_before and bash verification", async () => {
    box = queueSandbox();
    box.repo("shop");
    const { result } = await submitCase(
      "repo: ./shop\nlabels: [billing]\nnot_before: 2026-12-01T18:00Z\npriority: high",
      VERIFY("bash", "npm test -- cart # cd is fine in a comment\ngrep -r 'cd ' src"),
      { labels: ["billing"] },
    );
    expect(result.findings).toEqual([]);
    expect(result.record).toMatchObject({
      state: "inbox",
      kind: "change",
      priority: "high",
      not_before: "2026-12-01T18:00:00.000Z",
    });
  });

  it("names every error of a ticket at once, not just the first", async () => {
    box = queueSandbox();
    const { result } = await submitCase(
      "repo: ./nope\nlabels: [x]\nnot_before: tomorrow\ncolour: red",
      VERIFY("bash", "cd src"),
    );
    expect(result.findings.map((f) => f.rule).sort()).toEqual(
      ["cd_in_verification", "not_before_unparseable", "repo_not_git", "unknown_key", "unknown_label"].sort(),
    );
  });

  it("retry lints again: a ticket refused for an unknown label goes back to the inbox once the label is configured", async () => {
    box = queueSandbox();
    const { result, queue } = await submitCase("labels: [billing]");
    expect(result.record.state).toBe("failed");
    await expect(queue.retry(result.id)).rejects.toMatchObject({ code: "TICKET_REJECTED" });
    writeFileSync(join(box.root, "config.json"), JSON.stringify({ labels: ["billing"] }));
    const configured = new FsTicketQueue(box.root, await readDaemonConfig(box.root));
    const record = await configured.retry(result.id);
    expect(record).toMatchObject({ state: "inbox", status: "queued", lint: [] });
    expect((await configured.get(result.id))?.state).toBe("inbox");
  });
});
