import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { cli } from "../support/cli.js";
import { type QueueSandbox, queueSandbox } from "../support/queue-harness.js";

/** The queue commands end to end through the real CLI program, on a data root DEVFLOW_HOME names. */
let box: QueueSandbox;
const saved = process.env.DEVFLOW_HOME;
beforeEach(() => {
  box = queueSandbox();
  process.env.DEVFLOW_HOME = box.root;
});
afterEach(() => {
  process.env.DEVFLOW_HOME = saved;
  box.cleanup();
});

describe("devflow schema", () => {
  it("prints the ticket contract, identical to schemas/ticket.schema.json, and it validates tickets with ajv", async () => {
    const run = await cli("schema");
    expect(run.code).toBe(0);
    expect(run.out).toBe(readFileSync(join(PACKAGE_ROOT, "schemas", "ticket.schema.json"), "utf8"));
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(JSON.parse(run.out));
    const good = parse(
      "repo: ../shop\npriority: high\nnot_before: 2026-12-01T18:00:00Z\nlabels: [billing]\ncoder: claude\nmodel: gpt-5\nmax_iterations: 3\nbudget_usd: 2.5\naudit:\n  focus: auth",
    );
    expect(validate(good)).toBe(true);
    expect(validate({ ...good, colour: "red" })).toBe(false);
    expect(validate({ ...good, priority: "urgent" })).toBe(false);
    expect(validate({ investigate: { question: "why?", extra: 1 } })).toBe(false);
  });
});

describe("the queue commands", () => {
  it("data prints the absence of the root and creates nothing", async () => {
    const run = await cli("data");
    expect(run.code).toBe(0);
    expect(run.out).toContain(`No data root at ${box.root}`);
    expect(existsSync(box.root)).toBe(false);
  });

  it("submit, list, status, cancel, retry and data tell the same story", async () => {
    const good = box.ticket("fix-cart.md", "priority: high");
    const bad = box.ticket("bad.md", "priority: high\ncolour: red");

    const submitted = await cli("submit", good, "--json");
    expect(submitted.code).toBe(0);
    const { id } = JSON.parse(submitted.out) as { id: string };
    expect(id).toMatch(/^fix-cart-[0-9a-f]{6}$/);
    expect(readFileSync(join(box.root, ".gitignore"), "utf8")).toBe("*\n");

    const refused = await cli("submit", bad);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/unknown_key: unknown key colour/);
    const badId = /^(bad-[0-9a-f]{6}):/.exec(refused.out)?.[1] ?? "";
    expect(badId).not.toBe("");

    const list = JSON.parse((await cli("list", "--json")).out) as {
      tickets: { id: string; state: string }[];
    };
    expect(list.tickets.map((t) => [t.id, t.state]).sort()).toEqual(
      [
        [id, "inbox"],
        [badId, "failed"],
      ].sort(),
    );
    const failedOnly = await cli("list", "--state", "failed");
    expect(failedOnly.out).toContain(badId);
    expect(failedOnly.out).not.toContain(id);
    expect((await cli("list", "--state", "nowhere")).code).toBe(2);

    const status = await cli("status");
    expect(status.out).toContain("inbox 1, processing 0, done 0, failed 1");
    const one = JSON.parse((await cli("status", id, "--json")).out) as { record: { status: string } };
    expect(one.record.status).toBe("queued");
    const missing = await cli("status", "no-such-ticket");
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("no ticket no-such-ticket");

    expect((await cli("cancel", id)).out).toContain("cancelled in failed/");
    expect((await cli("retry", id, "--json")).code).toBe(0);
    const retriedBad = await cli("retry", badId);
    expect(retriedBad.code).toBe(2);
    expect(retriedBad.err).toContain("failed plan-lint");

    const data = await cli("data");
    expect(data.out).toMatch(/queue\/inbox\s+1 file/);
    expect(data.out).toMatch(/queue\/failed\s+1 file/);
  });

  it("each command's help ends with examples, DEVFLOW_HOME and exit codes", async () => {
    for (const command of ["submit", "list", "status", "cancel", "retry", "data"]) {
      const help = await cli(command, "--help");
      expect(help.code).toBe(0);
      expect(help.out).toContain("Examples:");
      expect(help.out).toContain("DEVFLOW_HOME");
      expect(help.out).toContain("Exit codes:");
    }
  });
});
