import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readDaemonConfig } from "../../src/daemon/daemon-config.js";
import { isDevflowError } from "../../src/errors/index.js";
import { dataRoot, ensureDataRoot } from "../../src/home/data-root.js";
import { type QueueSandbox, queueSandbox } from "../support/queue-harness.js";

let box: QueueSandbox;
afterEach(() => box?.cleanup());

describe("the data root", () => {
  it("is ~/.devflow unless DEVFLOW_HOME names another (a relative one against the cwd)", () => {
    expect(dataRoot({ HOME: "/home/ana" })).toBe("/home/ana/.devflow");
    expect(dataRoot({ HOME: "/home/ana", DEVFLOW_HOME: "/srv/devflow" })).toBe("/srv/devflow");
    expect(dataRoot({ HOME: "/home/ana", DEVFLOW_HOME: "rel/df" })).toBe(resolve("rel/df"));
    expect(dataRoot({ HOME: "/home/ana", DEVFLOW_HOME: "  " })).toBe("/home/ana/.devflow");
  });

  it("is created whole with a .gitignore of *, which is restored when edited", () => {
    box = queueSandbox();
    ensureDataRoot(box.root);
    expect(readdirSync(box.root).sort()).toEqual([".gitignore", "cache", "data", "logs", "queue"]);
    expect(readdirSync(join(box.root, "queue")).sort()).toEqual([
      ".tmp",
      "done",
      "failed",
      "inbox",
      "processing",
    ]);
    writeFileSync(join(box.root, ".gitignore"), "!important\n");
    ensureDataRoot(box.root);
    expect(readFileSync(join(box.root, ".gitignore"), "utf8")).toBe("*\n");
  });

  it("refuses a root that is a file with DATA_ROOT_UNUSABLE naming it", () => {
    box = queueSandbox();
    writeFileSync(box.root, "not a folder");
    const error = (() => {
      try {
        ensureDataRoot(box.root);
      } catch (e) {
        return e;
      }
    })();
    expect(isDevflowError(error, "DATA_ROOT_UNUSABLE")).toBe(true);
    expect((error as Error).message).toContain(box.root);
  });
});

describe("the daemon's config.json", () => {
  it("is the defaults when absent, and refuses an unknown key by name", async () => {
    box = queueSandbox();
    mkdirSync(box.root);
    expect(await readDaemonConfig(box.root)).toEqual({
      labels: [],
      max_ticket_bytes: 65_536,
      lease_stale_seconds: 300,
      worker: {
        maxConcurrent: 1,
        pollIntervalSeconds: 5,
        recoverIntervalSeconds: 60,
        graceSeconds: 60,
        maxTransientRetries: 3,
        backoffBaseSeconds: 30,
        backoffMaxSeconds: 900,
        maxProviderRequeues: 3,
        probeEnabled: true,
        probeTimeoutSeconds: 5,
        rateLimitBaseSeconds: 30,
        rateLimitMaxSeconds: 900,
        healthPort: 0,
        logMaxBytes: 10 * 1024 * 1024,
        logKeepFiles: 5,
        maxVerificationBlocks: 8,
        verificationTimeoutSeconds: 300,
      },
    });
    writeFileSync(join(box.root, "config.json"), JSON.stringify({ worker: { maxConcurent: 2 } }));
    await expect(readDaemonConfig(box.root)).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("unknown key maxConcurent"),
    });
    writeFileSync(join(box.root, "config.json"), JSON.stringify({ labels: ["a"], lables: ["b"] }));
    await expect(readDaemonConfig(box.root)).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("unknown key lables"),
    });
  });

  /**
   * Regression (review of stop 18): a heartbeat of 400 s with the default stale time of 300 s made
   * the daemon's own periodic recovery take back every ticket it ran, so none ever finished. Fix:
   * the config is refused unless the heartbeat is under half the stale time.
   */
  it("regression: refuses a heartbeat that is not under half of lease_stale_seconds, naming both", async () => {
    box = queueSandbox();
    mkdirSync(box.root);
    writeFileSync(join(box.root, "config.json"), JSON.stringify({ worker: { heartbeatSeconds: 150 } }));
    await expect(readDaemonConfig(box.root)).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringMatching(/heartbeatSeconds.*less than half of lease_stale_seconds \(300\)/),
    });
    writeFileSync(join(box.root, "config.json"), JSON.stringify({ worker: { heartbeatSeconds: 149 } }));
    expect((await readDaemonConfig(box.root)).worker.heartbeatSeconds).toBe(149);
  });
});
