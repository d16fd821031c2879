import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkDaemon, type DaemonCheck, renderDaemonSection } from "../../src/daemon/doctor-check.js";
import { acquireDaemonLock } from "../../src/home/daemon-lock.js";
import { tempDir } from "../support/lane-harness.js";

/** `devflow doctor`'s daemon section (ADR 0054) against real data roots, locks and loopback servers. */
const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const env = (root: string) => ({ DEVFLOW_HOME: root });
const byName = (checks: DaemonCheck[], name: DaemonCheck["name"]) =>
  checks.find((c) => c.name === name) as DaemonCheck;

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server: Server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(
    () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  );
  return (server.address() as AddressInfo).port;
}

describe("devflow doctor: the daemon", () => {
  it("an absent data root is a warning (it will be created), the rest fine", async () => {
    const root = join(tempDir(), "never-made");
    const report = await checkDaemon({ env: env(root) });
    expect(report.checks.map((c) => [c.name, c.status])).toEqual([
      ["data_root", "warn"],
      ["lock", "ok"],
      ["config", "ok"],
      ["health", "ok"],
    ]);
    expect(byName(report.checks, "config").detail).toContain("the defaults");
  });

  it("a data root that is a file, or not writable, fails", async () => {
    const file = join(tempDir(), "root-file");
    writeFileSync(file, "");
    expect(byName((await checkDaemon({ env: env(file) })).checks, "data_root")).toMatchObject({
      status: "fail",
      detail: `${file} is not a folder`,
    });
    if (process.getuid?.() === 0) return; // root writes anywhere: the mode check means nothing then
    const locked = join(tempDir(), "ro");
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    closers.push(() => chmodSync(locked, 0o700));
    expect(byName((await checkDaemon({ env: env(locked) })).checks, "data_root").status).toBe("fail");
  });

  it("names the live holder of the lock, and a lock left by a dead process", async () => {
    const root = tempDir();
    const lock = await acquireDaemonLock(root);
    closers.push(() => lock.release());
    expect(byName((await checkDaemon({ env: env(root) })).checks, "lock")).toMatchObject({
      status: "ok",
      detail: `held by pid ${process.pid} on ${hostname()}: a daemon is running`,
    });
    await lock.release();

    const dead = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => dead.on("exit", r));
    mkdirSync(join(root, "daemon.lock"));
    writeFileSync(join(root, "daemon.owner"), JSON.stringify({ pid: dead.pid, host: hostname() }));
    expect(byName((await checkDaemon({ env: env(root) })).checks, "lock")).toMatchObject({
      status: "warn",
      detail: `left by pid ${dead.pid} on ${hostname()}, which is gone`,
    });
  });

  it("an invalid config fails with the file and the key", async () => {
    const root = tempDir();
    writeFileSync(join(root, "config.yaml"), "worker:\n  maxConcurent: 2\n");
    const config = byName((await checkDaemon({ env: env(root) })).checks, "config");
    expect(config.status).toBe("fail");
    expect(config.detail).toContain(`${join(root, "config.yaml")}: unknown key maxConcurent`);
  });

  it("asks a running daemon's /health on loopback; one that does not answer in time fails", async () => {
    const root = tempDir();
    const ok = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "running", running: [{ id: "t" }], gate: { state: "open" } }));
    });
    const url = `http://127.0.0.1:${ok}`;
    writeFileSync(join(root, "health.json"), JSON.stringify({ url, port: ok, pid: process.pid }));
    expect(byName((await checkDaemon({ env: env(root) })).checks, "health")).toMatchObject({
      status: "ok",
      detail: `${url}/health answers: running, 1 running, gate open`,
    });

    const stuck = await listen(() => {}); // takes the request, never answers
    writeFileSync(
      join(root, "health.json"),
      JSON.stringify({ url: `http://127.0.0.1:${stuck}`, port: stuck, pid: process.pid }),
    );
    const started = Date.now();
    const health = byName((await checkDaemon({ env: env(root), timeoutMs: 300 })).checks, "health");
    expect(health.status).toBe("fail");
    expect(health.detail).toContain("did not answer within 300 ms");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(renderDaemonSection(await checkDaemon({ env: env(root), timeoutMs: 300 })).join("\n")).toMatch(
      /✗ \/health +http:\/\/127\.0\.0\.1:\d+\/health did not answer/,
    );
  });

  it("a health.json that names a URL off loopback is not followed", async () => {
    const root = tempDir();
    writeFileSync(
      join(root, "health.json"),
      JSON.stringify({ url: "http://example.com:80", pid: process.pid }),
    );
    expect(byName((await checkDaemon({ env: env(root) })).checks, "health")).toMatchObject({
      status: "fail",
      detail: `${join(root, "health.json")} names no loopback URL`,
    });
  });
});

describe("devflow doctor (the real CLI)", () => {
  it("prints the daemon section, and a broken daemon config is among what blocks", async () => {
    const { startDevflow } = await import("../support/devflow-process.js");
    const root = tempDir();
    writeFileSync(join(root, "config.json"), '{"worker": {"healthPort": 70000}}');
    const doctor = startDevflow(["doctor", "--coder", "command:true", "--timeout", "1"], {
      DEVFLOW_HOME: root,
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
    });
    expect(await doctor.exit).toBe(2);
    const out = doctor.stdout();
    expect(out, doctor.stderr()).toContain(`Daemon (data root ${root})`);
    expect(out).toMatch(/✓ data root +\S+ exists and is writable/);
    expect(out).toMatch(/✓ lock +free: no daemon works on this data root/);
    expect(out).toMatch(/✗ config +.*config\.json: worker\.healthPort/);
    expect(out).toMatch(/ {2}- daemon config: .*worker\.healthPort/);
  }, 60_000);
});
