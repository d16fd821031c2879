/**
 * devflow's atomic write (issue 11, ADR 0050 session 25), for every caller (artifact store,
 * records, lease, spend ledger, cassette recorder). Cause: write-file-atomic cost ~1.0 ms of
 * devflow's CPU per write (realpath, stat, chown, chmod, an exit hook and an unlink after every
 * rename, each through libuv's pool), and an attempt writes ~13 files. Fix: `writeFileDurably`
 * keeps what the callers rely on (temp file + fsync + rename, the old file untouched on failure,
 * one file's writes in call order) at ~0.2 ms.
 */
import fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileDurably, writeFileDurablySync } from "./durable-write.js";

let dir = "";
beforeEach(() => {
  dir = fs.mkdtempSync(join(tmpdir(), "devflow-durable-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("writeFileDurably", () => {
  it("replaces the file with exactly the text and leaves no temp file", async () => {
    const file = join(dir, "a.json");
    fs.writeFileSync(file, "old");
    await writeFileDurably(file, "new ✓\n");
    expect(fs.readFileSync(file, "utf8")).toBe("new ✓\n");
    await writeFileDurably(join(dir, "b.json"), "");
    expect(fs.readFileSync(join(dir, "b.json"), "utf8")).toBe("");
    expect(fs.readdirSync(dir).sort()).toEqual(["a.json", "b.json"]);
  });

  it("writes a text larger than one synchronous write whole", async () => {
    const file = join(dir, "big.patch");
    const text = "0123456789abcdef".repeat(200_000); // 3.2 MB
    await writeFileDurably(file, text);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect(fs.readdirSync(dir)).toEqual(["big.patch"]);
  });

  it("applies one file's writes in call order, whatever their sizes", async () => {
    const file = join(dir, "ordered.json");
    const big = "x".repeat(1_000_000);
    await Promise.all([
      writeFileDurably(file, big),
      writeFileDurably(file, "second"),
      writeFileDurably(file, "last"),
    ]);
    expect(fs.readFileSync(file, "utf8")).toBe("last");
    expect(fs.readdirSync(dir)).toEqual(["ordered.json"]);
  });

  it("leaves the old file and no temp file when the rename fails, and the next write still runs", async () => {
    const target = join(dir, "is-a-dir");
    fs.mkdirSync(join(target, "inside"), { recursive: true });
    await expect(writeFileDurably(target, "text")).rejects.toThrow();
    expect(fs.readdirSync(dir)).toEqual(["is-a-dir"]);
    expect(fs.readdirSync(target)).toEqual(["inside"]);
    const file = join(dir, "after.json");
    await writeFileDurably(file, "ok");
    expect(fs.readFileSync(file, "utf8")).toBe("ok");
  });

  it("fails without a trace when the directory does not exist", async () => {
    await expect(writeFileDurably(join(dir, "missing", "a.json"), "text")).rejects.toThrow(/ENOENT/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("replaces a symlink at the path instead of writing through it", async () => {
    const outside = join(dir, "outside.txt");
    fs.writeFileSync(outside, "not devflow's");
    const file = join(dir, "link.json");
    fs.symlinkSync(outside, file);
    await writeFileDurably(file, "devflow's");
    expect(fs.readFileSync(outside, "utf8")).toBe("not devflow's");
    expect(fs.readFileSync(file, "utf8")).toBe("devflow's");
  });
});

describe("writeFileDurablySync", () => {
  it("replaces the file with exactly the text and leaves no temp file", () => {
    const file = join(dir, "cassette.json");
    fs.writeFileSync(file, "old");
    writeFileDurablySync(file, "new ✓\n");
    expect(fs.readFileSync(file, "utf8")).toBe("new ✓\n");
    writeFileDurablySync(join(dir, "fresh.json"), "made");
    expect(fs.readFileSync(join(dir, "fresh.json"), "utf8")).toBe("made");
    expect(fs.readdirSync(dir).sort()).toEqual(["cassette.json", "fresh.json"]);
  });

  it("writes through a symlink the user pointed at the file (the link stays)", () => {
    const real = join(dir, "real.json");
    fs.writeFileSync(real, "old");
    const link = join(dir, "link.json");
    fs.symlinkSync(real, link);
    writeFileDurablySync(link, "new");
    expect(fs.readFileSync(real, "utf8")).toBe("new");
    expect(fs.readdirSync(dir).sort()).toEqual(["link.json", "real.json"]);
  });

  it("leaves the old file and no temp file when the rename fails", () => {
    const target = join(dir, "is-a-dir");
    fs.mkdirSync(join(target, "inside"), { recursive: true });
    expect(() => writeFileDurablySync(target, "text")).toThrow();
    expect(fs.readdirSync(dir)).toEqual(["is-a-dir"]);
    expect(fs.readdirSync(target)).toEqual(["inside"]);
  });
});
