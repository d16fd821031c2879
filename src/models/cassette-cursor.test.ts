/**
 * The cassette cursor a resumed run continues from (ADR 0035; issue 10, item 7): a resumed replay
 * hands out the answers after it and counts the ones before it as used (cassette_fully_replayed
 * stays correct); a resumed recording keeps the cassette's answers up to it, drops the ones
 * recorded after it (their node runs again) and appends.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { isDevflowError } from "../errors/index.js";
import { CassettePlayer } from "./cassette-player.js";
import { CassetteRecorder } from "./cassette-recorder.js";
import { createModelGateway } from "./create-gateway.js";

const Verdict = z.object({ verdict: z.enum(["pass", "fail"]), notes: z.string() });
const criticCall = {
  role: "critic" as const,
  name: "verdict",
  description: "Judge.",
  schema: Verdict,
  messages: [new HumanMessage("judge this")],
};
const answer = (notes: string) => ({ structured: { verdict: "pass", notes } });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "devflow-cursor-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function cassetteFile(calls: Record<string, unknown[]>): string {
  const path = join(dir, "cassette.json");
  writeFileSync(path, JSON.stringify({ version: 1, calls }));
  return path;
}

describe("replay resumed from a checkpointed cursor", () => {
  it("continues after the cursor, and counts the answers before it as used", async () => {
    const path = cassetteFile({ critic: [answer("c1"), answer("c2"), answer("c3")], framer: [answer("f1")] });
    const gateway = createModelGateway({ mode: "replay", cassettePath: path, env: {} });
    gateway.resumeCassette({ cassette: path, calls: { critic: 1, framer: 1 } });
    expect(gateway.cassetteCursor()).toEqual({ cassette: path, calls: { critic: 1, framer: 1 } });
    expect(gateway.unusedReplies()).toEqual({ critic: 2 });
    expect(await gateway.structured(criticCall)).toEqual({ verdict: "pass", notes: "c2" });
    expect(gateway.cassetteCursor()).toEqual({ cassette: path, calls: { critic: 2, framer: 1 } });
    expect(gateway.unusedReplies()).toEqual({ critic: 1 });
  });

  it("a cursor of another cassette file is not applied: that cassette starts at its first answers", async () => {
    const path = cassetteFile({ critic: [answer("c1"), answer("c2")] });
    const gateway = createModelGateway({ mode: "replay", cassettePath: path, env: {} });
    gateway.resumeCassette({ cassette: join(dir, "another.json"), calls: { critic: 1 } });
    expect(await gateway.structured(criticCall)).toEqual({ verdict: "pass", notes: "c1" });
  });

  it("never moves a role back that this process already went further in (same-process resume)", () => {
    const player = new CassettePlayer("c.json", {
      version: 1,
      calls: { critic: [answer("c1"), answer("c2")] },
    });
    player.next("critic");
    player.next("critic");
    player.resumeFrom({ critic: 1 });
    expect(player.cursor()).toEqual({ critic: 2 });
  });

  it("refuses a cursor past the cassette's end: not the cassette the task ran with", () => {
    const path = cassetteFile({ critic: [answer("c1")] });
    const gateway = createModelGateway({ mode: "replay", cassettePath: path, env: {} });
    let error: unknown;
    try {
      gateway.resumeCassette({ cassette: path, calls: { critic: 2 } });
    } catch (e) {
      error = e;
    }
    expect(isDevflowError(error, "CASSETTE_INVALID")).toBe(true);
    expect(String(error)).toContain(
      "has 1 answer(s) for role critic, but the task's checkpoint has already consumed 2",
    );
  });
});

describe("recording resumed from a checkpointed cursor", () => {
  it("keeps the answers up to the cursor, drops the ones recorded after it, and appends", () => {
    const path = cassetteFile({
      framer: [answer("f1")],
      critic: [answer("c1"), answer("orphan: recorded, never checkpointed")],
    });
    const recorder = new CassetteRecorder(path, []);
    recorder.resumeFrom({ framer: 1, critic: 1 });
    expect(recorder.cursor()).toEqual({ framer: 1, critic: 1 });
    recorder.append("critic", answer("c2"));
    const written = JSON.parse(readFileSync(path, "utf8"));
    expect(written.calls).toEqual({ framer: [answer("f1")], critic: [answer("c1"), answer("c2")] });
  });

  it("refuses to continue a cassette that lacks answers the checkpoint used", () => {
    const path = cassetteFile({ critic: [answer("c1")] });
    const recorder = new CassetteRecorder(path, []);
    expect(() => recorder.resumeFrom({ critic: 2 })).toThrow(
      "it holds 1 answer(s) for role critic, but the task's checkpoint used 2",
    );
    expect(() => new CassetteRecorder(join(dir, "missing.json"), []).resumeFrom({ framer: 1 })).toThrow(
      "it holds 0 answer(s) for role framer",
    );
  });

  it("a fresh run (empty cursor) leaves an existing cassette to be overwritten as before", () => {
    const path = cassetteFile({ critic: [answer("old")] });
    const recorder = new CassetteRecorder(path, []);
    recorder.resumeFrom({});
    recorder.append("framer", answer("f1"));
    expect(JSON.parse(readFileSync(path, "utf8")).calls).toEqual({ framer: [answer("f1")] });
  });
});
