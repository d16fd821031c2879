// Bug pinned (issue 11, "Cassettes"): nothing checked a cassette before a run, and a wrong shape
// only surfaced as "has no answer for role framer call #2" mid-run; a replay that left answers
// unused said nothing outside the playground. Fix: `devflow cassette check <file>` (structure, then
// every entry against its role's schema and tools; src/agents/check-cassette.ts) and a stderr
// warning after a replay that left answers (src/cli/cassette-leftovers.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../support/cli.js";
import { demoCassette, tempDir, writeCassette } from "../support/lane-harness.js";

const route = { structured: { route: "neither", rationale: "small talk", confidence: 0.8 } };

describe("devflow cassette check <file>", () => {
  it("accepts the demo cassette (exit 0), counting the entries per role", async () => {
    const run = await cli("cassette", "check", writeCassette(demoCassette()));
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/: ok \(framer 1, observer \d+, iterator 1, critic \d+\)\n$/);
  });

  it("names the entry (role, call #n), the field and why for a wrong shape (exit 1)", async () => {
    const cassette = demoCassette();
    const framed = cassette.calls.framer?.[0];
    if (!framed || !("structured" in framed)) throw new Error("demo cassette lost its framer answer");
    cassette.calls.framer = [{ structured: { ...framed.structured, task_type: "bug_fix", title: 7 } }];
    cassette.calls.router = [route, { content: "", tool_calls: [{ name: "read_file", args: {} }] }];
    const file = writeCassette(cassette);
    const run = await cli("cassette", "check", file);
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    expect(run.err).toContain(
      `devflow: cassette ${file}: calls.framer[0] (framer call #1): does not fit task_framing: title: `,
    );
    expect(run.err).toMatch(/task_type: Invalid option: expected one of "error_fix"\|/);
    expect(run.err).toContain(
      `calls.router[1] (router call #2): tool_calls[0].name: "read_file" is not a tool of the intake router (it has no tools)`,
    );
    expect(run.err).toContain("2 problem(s); every role's shape is in docs/cassettes.md");
  });

  it("reports a file that is not a cassette with the place in it (exit 1)", async () => {
    const file = join(tempDir(), "c.json");
    writeFileSync(file, JSON.stringify({ version: 1, calls: { framr: [] } }));
    const run = await cli("cassette", "check", file);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`cassette ${file}: calls.framr: unknown role (known roles: router, framer,`);
  });

  it("a scripted repair round (an invalid entry, then a valid one) is a warning, not a problem", async () => {
    const file = writeCassette({
      version: 1,
      calls: { router: [{ structured: { route: "maybe" } }, route] },
    });
    const run = await cli("cassette", "check", file);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(
      /^warning: cassette .*calls\.router\[0\] \(router call #1\): does not fit route_decision: .*answered by call #2\n$/,
    );
  });
});

describe("a replay that leaves answers unused", () => {
  it("warns on stderr, naming the cassette and the roles, and keeps the exit code", async () => {
    const file = writeCassette({ version: 1, calls: { router: [route, route, route] } });
    const run = await cli("route", "--replay", file, "hello");
    expect(run.code).toBe(0);
    expect(run.err).toBe(
      `devflow: warning: cassette ${file}: 2 answer(s) not used (router 2); the run made fewer model calls than the cassette scripts\n`,
    );
  });
});
