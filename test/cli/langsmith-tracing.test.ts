/**
 * Regression: `LANGSMITH_TRACING=true` (common in LangChain users' shells) made every command hang
 * 80–120 s at exit when the endpoint was unreachable, and printed langsmith's warnings (issue 11).
 * Cause: LangChain's tracer uploads through langsmith's client (90 s per request, 4 retries) and
 * its pending batches keep node alive. Fix (ADR 0042, src/models/langsmith-tracing.ts): devflow
 * hands langsmith a bounded, quiet, redacting fetch and waits for pending traces at most
 * DEVFLOW_TRACING_FLUSH_MS at exit. Tracing still works when configured: a loopback
 * LangSmith-compatible server records what arrives, with devflow's secrets redacted.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";

/**
 * The routing scenario's first router answer alone: route makes one call, and a replay that left
 * answers unused would add its own warning line to the stderr these tests expect exactly.
 */
const CASSETTE = (() => {
  const whole = JSON.parse(
    readFileSync(join(PACKAGE_ROOT, "scenarios", "cassettes", "devin_iterate_routing.json"), "utf8"),
  );
  const dir = mkdtempSync(join(tmpdir(), "devflow-tracing-cassette-"));
  const path = join(dir, "one-route.json");
  writeFileSync(path, JSON.stringify({ ...whole, calls: { router: whole.calls.router.slice(0, 1) } }));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return path;
})();
const PLANTED = "planted-tracing-secret-4711";
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0)) fn();
});

interface Received {
  method: string;
  url: string;
  apiKey: string | undefined;
  body: string;
}

/** A LangSmith-compatible endpoint on loopback: answers every request `{}` and keeps what it got. */
async function loopbackLangSmith(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createHttpServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const key = req.headers["x-api-key"];
      received.push({
        method: req.method ?? "",
        url: req.url ?? "",
        apiKey: Array.isArray(key) ? key[0] : key,
        body: Buffer.concat(chunks).toString("latin1"),
      });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  return { url: await listen(server), received };
}

/** Accepts connections and never answers: the worst endpoint for an upload at exit. */
async function blackhole(): Promise<string> {
  const sockets: Socket[] = [];
  const server = createServer((s) => void sockets.push(s));
  const url = await listen(server);
  cleanup.push(() => {
    for (const s of sockets) s.destroy();
  });
  return url;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(() => server.close());
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** ms from the command's answer on stdout to the process's exit: what tracing adds. */
  exitDelayMs: number;
}

function routeTraced(endpoint: string, extraEnv: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [DEVFLOW_BIN, "route", "--replay", CASSETTE, `fix the csv import; the token is ${PLANTED}`],
      {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: process.env.HOME ?? "/tmp",
          LANGSMITH_TRACING: "true",
          LANGSMITH_ENDPOINT: endpoint,
          LANGSMITH_API_KEY: "lsv2-test-key-not-real",
          LANGSMITH_PROJECT: "devflow-test",
          BILLING_SERVICE_TOKEN: PLANTED,
          ...extraEnv,
        },
      },
    );
    let stdout = "";
    let stderr = "";
    let answeredAt = 0;
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
      answeredAt ||= Date.now();
    });
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({ code, stdout, stderr, exitDelayMs: answeredAt === 0 ? Number.NaN : Date.now() - answeredAt }),
    );
  });
}

describe("LangSmith tracing", () => {
  it("sends the run's traces to the configured endpoint, with devflow's secrets redacted", async () => {
    const server = await loopbackLangSmith();
    const run = await routeTraced(server.url);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^iterate \(confidence/);
    const uploads = server.received.filter((r) => r.method === "POST" && r.url.includes("/runs"));
    expect(
      uploads.length,
      JSON.stringify(server.received.map((r) => `${r.method} ${r.url}`)),
    ).toBeGreaterThan(0);
    const sent = uploads.map((r) => r.body).join("\n");
    expect(uploads.every((r) => r.apiKey === "lsv2-test-key-not-real")).toBe(true);
    // The router's call is in the trace (its input and the replayed answer), the planted secret is not.
    expect(sent).toContain("fix the csv import; the token is ");
    expect(sent).toContain("[redacted:BILLING_SERVICE_TOKEN]");
    expect(sent).not.toContain(PLANTED);
    expect(run.stderr).toBe("");
  });

  it("an endpoint that never answers delays exit by at most the flush bound, with one line", async () => {
    const run = await routeTraced(await blackhole());
    console.log(`LangSmith blackhole: exit delay ${run.exitDelayMs} ms after the answer`);
    expect(run.code, run.stderr).toBe(0);
    // The bound is 1.5 s (DEVFLOW_TRACING_FLUSH_MS); generous here for a loaded machine, far below
    // the 80–120 s the bug cost.
    expect(run.exitDelayMs).toBeLessThan(10_000);
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^devflow: LangSmith tracing to http:\/\/127\.0\.0\.1:\d+ did not finish within 1500 ms/,
      ),
    ]);
  });

  it("a closed port exits promptly with one line instead of langsmith's warnings", async () => {
    const closed = await blackhole();
    for (const fn of cleanup.splice(0)) fn(); // close it: nothing listens on that port now
    const run = await routeTraced(closed);
    console.log(`LangSmith closed port: exit delay ${run.exitDelayMs} ms after the answer`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.exitDelayMs).toBeLessThan(10_000);
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^devflow: LangSmith tracing to http:\/\/127\.0\.0\.1:\d+ failed \(.*\); traces of this run were dropped$/,
      ),
    ]);
  });
});
