import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDaemonLogger } from "../../src/daemon/daemon-log.js";
import { RotatingLogFile } from "../../src/daemon/rotating-log-file.js";
import { createRedactor } from "../../src/util/redact.js";
import { tempDir } from "../support/lane-harness.js";

/** The daemon's log (ADR 0054) on real files: JSON lines, size rotation, redaction. */
const files: RotatingLogFile[] = [];
afterEach(() => {
  for (const f of files.splice(0)) f.close();
});

const lines = (path: string): string[] => readFileSync(path, "utf8").split("\n").filter(Boolean);

describe("RotatingLogFile", () => {
  it("rotates before a write would pass maxBytes, keeps `keep` files, drops the oldest", () => {
    const path = join(tempDir(), "logs", "daemon.log");
    const file = new RotatingLogFile(path, () => ({ maxBytes: 100, keep: 2 }));
    files.push(file);
    for (let i = 0; i < 20; i++) file.write(`line ${String(i).padStart(2, "0")} ${"x".repeat(30)}\n`);
    // 40 bytes a line: two lines per file; 20 lines = 10 files' worth, 3 kept (current + 2).
    for (const p of [path, `${path}.1`, `${path}.2`]) expect(statSync(p).size).toBeLessThanOrEqual(100);
    expect(existsSync(`${path}.3`)).toBe(false);
    expect(lines(path).map((l) => l.slice(0, 7))).toEqual(["line 18", "line 19"]);
    expect(lines(`${path}.1`).map((l) => l.slice(0, 7))).toEqual(["line 16", "line 17"]);
    expect(lines(`${path}.2`).map((l) => l.slice(0, 7))).toEqual(["line 14", "line 15"]);
  });

  it("reads its limits at every write (a reloaded config applies at once); keep 0 keeps none", () => {
    const path = join(tempDir(), "daemon.log");
    let limits = { maxBytes: 1000, keep: 3 };
    const file = new RotatingLogFile(path, () => limits);
    files.push(file);
    for (let i = 0; i < 5; i++) file.write(`${"y".repeat(49)}\n`);
    expect(existsSync(`${path}.1`)).toBe(false);
    limits = { maxBytes: 100, keep: 0 };
    file.write(`${"z".repeat(49)}\n`);
    expect(existsSync(`${path}.1`)).toBe(false);
    expect(lines(path)).toEqual(["z".repeat(49)]);
  });

  it("continues an existing file and counts its size", () => {
    const path = join(tempDir(), "daemon.log");
    const first = new RotatingLogFile(path, () => ({ maxBytes: 100, keep: 1 }));
    first.write(`${"a".repeat(59)}\n`);
    first.close();
    const second = new RotatingLogFile(path, () => ({ maxBytes: 100, keep: 1 }));
    files.push(second);
    second.write(`${"b".repeat(59)}\n`);
    expect(lines(`${path}.1`)).toEqual(["a".repeat(59)]);
    expect(lines(path)).toEqual(["b".repeat(59)]);
  });
});

describe("createDaemonLogger", () => {
  const SECRET = "ops-log-secret-7c1e9a";
  function logger(format: "human" | "json") {
    const file = join(tempDir(), "logs", "daemon.log");
    let stderr = "";
    const log = createDaemonLogger({
      file,
      limits: () => ({ maxBytes: 1 << 20, keep: 1 }),
      format,
      stderr: (t) => {
        stderr += t;
      },
      redact: createRedactor([SECRET]),
      now: () => new Date("2026-01-02T03:04:05.000Z"),
    });
    return { log, file, stderr: () => stderr };
  }

  it("writes one JSON object per line (time, level, msg, fields) and a human line on stderr", () => {
    const { log, file, stderr } = logger("human");
    log.log("info", "claimed t-1", { id: "t-1" });
    log.log("error", "config refused");
    log.close();
    expect(lines(file).map((l) => JSON.parse(l))).toEqual([
      { time: "2026-01-02T03:04:05.000Z", level: "info", msg: "claimed t-1", fields: { id: "t-1" } },
      { time: "2026-01-02T03:04:05.000Z", level: "error", msg: "config refused" },
    ]);
    expect(stderr()).toBe("devflow daemon: claimed t-1\ndevflow daemon: error: config refused\n");
  });

  it("--log-format json: stderr gets the file's lines", () => {
    const { log, file, stderr } = logger("json");
    log.log("warn", "lost t-2");
    log.close();
    expect(stderr()).toBe(readFileSync(file, "utf8"));
  });

  it("a secret in a message or a field reaches neither the file nor stderr", () => {
    const { log, file, stderr } = logger("human");
    log.log("error", `cannot parse config: "${SECRET}" is not valid`, { key: SECRET });
    log.close();
    expect(readFileSync(file, "utf8")).not.toContain(SECRET);
    expect(stderr()).not.toContain(SECRET);
    expect(JSON.parse(lines(file)[0] as string).msg).toContain("[REDACTED]");
  });
});
