import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { type QueueSandbox, queueSandbox } from "../support/queue-harness.js";

/**
 * Submit is atomic (issue 12, junco #144): the bytes go to a unique temp file and are hard-linked
 * into place, and link(2) never replaces a file. Three real processes race to create the same 200
 * files: each has exactly one winner, holding that winner's complete bytes, and no temp file is left.
 */
let box: QueueSandbox;
afterEach(() => box.cleanup());

const TSX = join(PACKAGE_ROOT, "node_modules", ".bin", "tsx");

function race(dir: string, tmp: string, label: string, rounds: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [
      join(PACKAGE_ROOT, "test", "daemon", "link-race.ts"),
      dir,
      tmp,
      label,
      String(rounds),
    ]);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.once("close", (code) =>
      code === 0 ? resolve(out.split("\n").filter(Boolean)) : reject(new Error(`exit ${code}: ${err}`)),
    );
  });
}

describe("submit's link-into-place", () => {
  it("has exactly one winner per file among racing processes, and the file is the winner's whole bytes", async () => {
    box = queueSandbox();
    const dir = join(box.dir, "target");
    const tmp = join(box.dir, "tmp");
    mkdirSync(dir);
    mkdirSync(tmp);
    const labels = ["p1", "p2", "p3"];
    const won = await Promise.all(labels.map((label) => race(dir, tmp, label, 200)));
    const all = won.flat();
    expect(all.length).toBe(200);
    expect(new Set(all).size).toBe(200);
    for (const [index, rounds] of won.entries()) {
      for (const round of rounds) {
        const content = readFileSync(join(dir, round), "utf8");
        expect(content.startsWith(`${labels[index]}\n`)).toBe(true);
        expect(content.length).toBe((labels[index] ?? "").length + 1 + 64 * 1024 + 1);
      }
    }
    expect(readdirSync(tmp)).toEqual([]);
  }, 120_000);

  it("gives concurrent submits of one file distinct ids, each with its record, none lost", async () => {
    box = queueSandbox();
    const queue = box.queue();
    const path = box.ticket("same.md", "priority: normal");
    const bytes = readFileSync(path);
    const results = await Promise.all(Array.from({ length: 40 }, () => queue.submit(path, bytes)));
    const ids = results.map((r) => r.id);
    expect(new Set(ids).size).toBe(40);
    expect(readdirSync(join(box.root, "queue", "inbox")).sort()).toEqual(ids.map((id) => `${id}.md`).sort());
    expect(readdirSync(join(box.root, "queue", ".tmp"))).toEqual([]);
  });
});
