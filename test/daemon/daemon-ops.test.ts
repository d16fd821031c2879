import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localDay } from "../../src/daemon/spend-ledger.js";
import {
  markedCoder,
  queueFiles,
  sandboxPerTest,
  startDaemon,
  submitChangeTicket,
  waitFor,
} from "../support/daemon-harness.js";
import { startDevflow } from "../support/devflow-process.js";
import { CORRECT_FIX, demoCassette, tempDir, writeCassette } from "../support/lane-harness.js";

/**
 * Operating `devflow daemon` (ADR 0054) as a real process (bin/devflow.js: `npm run build` first):
 * real HTTP requests to /health and /metrics while tickets move, hot reload of config.json, the
 * JSON log under logs/ and its rotation.
 */
const box = sandboxPerTest();

const SECRET = "ops-daemon-secret-5d2b8e";

function writeConfig(worker: Record<string, unknown>, extra: Record<string, unknown> = {}): void {
  mkdirSync(box.root, { recursive: true });
  writeFileSync(
    join(box.root, "config.json"),
    JSON.stringify({
      ...extra,
      worker: {
        pollIntervalSeconds: 0.2,
        recoverIntervalSeconds: 1,
        graceSeconds: 0,
        healthPort: 0,
        ...worker,
      },
    }),
  );
}

/** A coder that notes its start, then waits for `gate` to exist before fixing. */
const gatedCoder = (starts: string, gate: string): string =>
  markedCoder(
    starts,
    `import { existsSync } from "node:fs";
while (!existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 100));
${CORRECT_FIX}`,
  );

async function endpoint(daemon: { stderr(): string }): Promise<string> {
  const file = join(box.root, "health.json");
  await waitFor("health.json", () => existsSync(file), 60_000).catch((error: Error) => {
    throw new Error(`${error.message}; the daemon said:\n${daemon.stderr()}`);
  });
  return (JSON.parse(readFileSync(file, "utf8")) as { url: string }).url;
}

interface Health {
  status: string;
  pid: number;
  gate: { state: string; source: string };
  queue: Record<"inbox" | "processing" | "done" | "failed", number>;
  running: { id: string; since: string; repo: string | null }[];
  spend_today: { day?: string; usd: number | null; unknown_sessions?: number };
  config: { path: string | null; last_error: string | null };
}

const startsOf = (path: string): number =>
  existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean).length : 0;

const health = async (url: string): Promise<Health> =>
  (await (await fetch(`${url}/health`)).json()) as Health;
const metrics = async (url: string): Promise<string> => (await fetch(`${url}/metrics`)).text();

/** The value of one Prometheus sample line, e.g. `devflow_tickets_total{status="completed",verdict="completed"}`. */
function sample(text: string, series: string): number | null {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

const logLines = (): Record<string, unknown>[] =>
  readFileSync(join(box.root, "logs", "daemon.log"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("operating devflow daemon", () => {
  it("/health and /metrics tell the truth while tickets move; a valid config change applies live, an invalid one is refused and the old kept", async () => {
    writeConfig({ maxConcurrent: 1 });
    const starts = join(tempDir(), "starts");
    const gate = join(tempDir(), "go");
    const ids: string[] = [];
    for (const name of ["a", "b", "c"])
      ids.push((await submitChangeTicket(box, name, gatedCoder(starts, gate))).id);
    // The secret is in the daemon's environment, as an operator's token would be.
    const daemon = startDevflow(["daemon", "--replay", writeCassette(demoCassette())], {
      DEVFLOW_HOME: box.root,
      DEVFLOW_OPS_TEST_TOKEN: SECRET,
    });
    try {
      const url = await endpoint(daemon);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await waitFor("one running ticket", () => existsSync(starts), 120_000);
      let h = await health(url);
      expect(h).toMatchObject({ status: "running", pid: daemon.child.pid, gate: { state: "open" } });
      // The real gate and the real ledger (merge of ADR 0052/0053 with 0054), not the placeholders.
      expect(h.gate.source).toBe("gate");
      expect(h.spend_today).toMatchObject({ day: localDay(new Date()) });
      expect(typeof h.spend_today.usd).toBe("number");
      expect(h.queue).toEqual({ inbox: 2, processing: 1, done: 0, failed: 0 });
      expect(h.running).toHaveLength(1);
      expect(ids).toContain(h.running[0]?.id);
      expect(h.running[0]?.repo).toBeTruthy();

      // Invalid (an unknown key, here one that is a secret): refused, logged, maxConcurrent stays 1.
      writeConfig({ maxConcurrent: 3 }, { [SECRET]: true });
      await waitFor("the refusal", () => daemon.stderr().includes("config refused"), 30_000);
      await new Promise((r) => setTimeout(r, 1500)); // several polls under the refused file
      h = await health(url);
      expect(h.running).toHaveLength(1);
      expect(h.queue).toMatchObject({ inbox: 2, processing: 1 });
      expect(h.config.last_error).toContain("unknown key");

      // Valid: maxConcurrent 3 applies without a restart; the two waiting tickets are claimed.
      writeConfig({ maxConcurrent: 3 });
      await waitFor(
        "three running tickets",
        () => daemon.stderr().includes("worker.maxConcurrent: 1 → 3"),
        30_000,
      );
      await waitFor("three running tickets", () => startsOf(starts) === 3, 120_000);
      h = await health(url);
      expect(h.queue).toEqual({ inbox: 0, processing: 3, done: 0, failed: 0 });
      expect(h.config.last_error).toBeNull();
      expect(sample(await metrics(url), "devflow_running_tickets")).toBe(3);

      writeFileSync(gate, "");
      await waitFor("three done tickets", () => queueFiles(box, "done").length === 3, 480_000);
      // A ticket is listed running until its worker lets it go, a moment after its move to done/.
      for (let i = 0; i < 50; i++) {
        h = await health(url);
        if (h.running.length === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(h.queue).toEqual({ inbox: 0, processing: 0, done: 3, failed: 0 });
      expect(h.running).toEqual([]);
      const m = await metrics(url);
      expect(sample(m, 'devflow_tickets_total{status="completed",verdict="completed"}')).toBe(3);
      expect(sample(m, "devflow_claim_latency_seconds_count")).toBe(3);
      expect(sample(m, 'devflow_queue_tickets{state="done"}')).toBe(3);
      expect(sample(m, 'devflow_config_reloads_total{result="refused"}')).toBe(1);
      expect(sample(m, 'devflow_config_reloads_total{result="applied"}')).toBe(1);
      expect(m).toContain("# TYPE devflow_gate_trips_total counter");
      // Each `command:` coder reports no cost: one unknown session per ticket, never counted as $0.
      expect(
        sample(m, `devflow_spend_today_unknown_sessions{day="${localDay(new Date())}"}`),
      ).toBeGreaterThanOrEqual(3);
      expect(m).toContain("# TYPE devflow_guard_trips_total counter");

      // Nothing else is served.
      expect((await fetch(`${url}/`)).status).toBe(404);
      expect((await fetch(`${url}/health/x`)).status).toBe(404);
      expect((await fetch(`${url}/health`, { method: "POST" })).status).toBe(404);
    } finally {
      daemon.child.kill("SIGTERM");
    }
    expect(await daemon.exit, daemon.stderr()).toBe(0);
    expect(existsSync(join(box.root, "health.json"))).toBe(false);

    const lines = logLines();
    for (const line of lines) {
      expect(Object.keys(line).slice(0, 3)).toEqual(["time", "level", "msg"]);
      expect(Number.isNaN(Date.parse(line.time as string))).toBe(false);
    }
    expect(lines).toContainEqual(
      expect.objectContaining({ level: "error", msg: expect.stringContaining("config refused") }),
    );
    expect(lines.filter((l) => String(l.msg).startsWith("finished "))).toHaveLength(3);
    const everything = readFileSync(join(box.root, "logs", "daemon.log"), "utf8") + daemon.stderr();
    expect(everything).not.toContain(SECRET);
  }, 900_000);

  it("rotates logs/daemon.log by size with the live limits; healthPort false serves nothing", async () => {
    writeConfig({ healthPort: false, logMaxBytes: 1024, logKeepFiles: 2 });
    const daemon = startDaemon(box);
    try {
      await waitFor("the start", () => daemon.stderr().includes("working on"), 60_000);
      // Each reload logs a line of ~250 bytes: 16 of them pass 1 KiB three times over.
      for (let i = 1; i <= 16; i++) {
        writeConfig({ healthPort: false, logMaxBytes: 1024, logKeepFiles: 2, recoverIntervalSeconds: i + 1 });
        await waitFor(`reload ${i}`, () => daemon.stderr().split("config reloaded").length - 1 === i, 30_000);
      }
    } finally {
      daemon.child.kill("SIGTERM");
    }
    expect(await daemon.exit, daemon.stderr()).toBe(0);
    const log = join(box.root, "logs", "daemon.log");
    for (const path of [log, `${log}.1`, `${log}.2`]) {
      const text = readFileSync(path, "utf8");
      expect(text.length).toBeLessThanOrEqual(1024);
      for (const line of text.split("\n").filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
    }
    expect(existsSync(`${log}.3`)).toBe(false);
    expect(readFileSync(log, "utf8")).toContain('"msg":"stopped"');
    expect(existsSync(join(box.root, "health.json"))).toBe(false);
    expect(daemon.stderr()).not.toContain("serving http");
  }, 300_000);
});
