import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DaemonConfig } from "../../src/artifacts/schemas/ticket.js";
import { ConfigReloader, configChanges } from "../../src/daemon/config-reload.js";
import { loadDaemonConfig, readDaemonConfig } from "../../src/daemon/daemon-config.js";
import { isDevflowError } from "../../src/errors/index.js";
import { waitFor } from "../support/daemon-harness.js";
import { tempDir } from "../support/lane-harness.js";

/** The daemon's config file (JSON or YAML) and its hot reload (ADR 0054), on real files. */
const reloaders: ConfigReloader[] = [];
afterEach(() => {
  for (const r of reloaders.splice(0)) r.close();
});

function root(): string {
  const dir = join(tempDir(), "home");
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function refusal(dir: string): Promise<string> {
  try {
    await readDaemonConfig(dir);
  } catch (error) {
    expect(isDevflowError(error, "CONFIG_INVALID")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("the config was accepted");
}

describe("the daemon's config file", () => {
  it("is read from config.yaml or config.yml as from config.json", async () => {
    const dir = root();
    writeFileSync(
      join(dir, "config.yaml"),
      "labels: [infra]\nworker:\n  maxConcurrent: 2\n  healthPort: false\n",
    );
    const loaded = await loadDaemonConfig(dir);
    expect(loaded.path).toBe(join(dir, "config.yaml"));
    expect(loaded.config.labels).toEqual(["infra"]);
    expect(loaded.config.worker).toMatchObject({ maxConcurrent: 2, healthPort: false, logKeepFiles: 5 });
    rmSync(join(dir, "config.yaml"));
    writeFileSync(join(dir, "config.yml"), ""); // empty: the defaults
    expect((await readDaemonConfig(dir)).worker.healthPort).toBe(0);
  });

  it("two config files are refused, naming both", async () => {
    const dir = root();
    writeFileSync(join(dir, "config.json"), "{}");
    writeFileSync(join(dir, "config.yml"), "labels: []\n");
    const message = await refusal(dir);
    expect(message).toContain(join(dir, "config.json"));
    expect(message).toContain(join(dir, "config.yml"));
  });

  it("a YAML duplicate key, a YAML syntax error and an unknown key are refused with the path", async () => {
    const dir = root();
    writeFileSync(join(dir, "config.yaml"), "labels: [a]\nlabels: [b]\n");
    expect(await refusal(dir)).toMatch(/config\.yaml is not YAML: .*[Uu]nique/);
    writeFileSync(join(dir, "config.yaml"), "worker: [\n");
    expect(await refusal(dir)).toContain("config.yaml is not YAML");
    writeFileSync(join(dir, "config.yaml"), "worker:\n  healthport: 80\n");
    expect(await refusal(dir)).toContain("unknown key healthport");
  });
});

describe("ConfigReloader", () => {
  async function start(dir: string) {
    const applied: DaemonConfig[] = [];
    const refused: string[] = [];
    const reloader = new ConfigReloader({
      root: dir,
      initial: await loadDaemonConfig(dir),
      apply: (config) => applied.push(config),
      refused: (why) => refused.push(why),
      checkEverySeconds: () => 0.1,
    });
    reloaders.push(reloader);
    reloader.start();
    return { reloader, applied, refused };
  }

  it("applies a valid change; refuses an invalid one once, keeping the previous config", async () => {
    const dir = root();
    writeFileSync(join(dir, "config.json"), JSON.stringify({ worker: { maxConcurrent: 1 } }));
    const { reloader, applied, refused } = await start(dir);
    writeFileSync(join(dir, "config.json"), JSON.stringify({ worker: { maxConcurrent: 3 } }));
    await waitFor("the change to apply", () => applied.length === 1, 10_000);
    expect(applied[0]?.worker.maxConcurrent).toBe(3);

    writeFileSync(join(dir, "config.json"), JSON.stringify({ worker: { maxConcurrent: 0 } }));
    await waitFor("the refusal", () => refused.length === 1, 10_000);
    expect(refused[0]).toContain("worker.maxConcurrent");
    expect(reloader.state().last_error).toContain("worker.maxConcurrent");
    // Judged once: no second refusal at the next checks, nothing applied.
    await new Promise((r) => setTimeout(r, 500));
    expect(refused).toHaveLength(1);
    expect(applied).toHaveLength(1);

    // Moving to YAML (json removed) is a change like any other.
    rmSync(join(dir, "config.json"));
    writeFileSync(join(dir, "config.yaml"), "worker:\n  maxConcurrent: 4\n");
    await waitFor("the YAML config", () => applied.at(-1)?.worker.maxConcurrent === 4, 10_000);
    expect(reloader.state()).toMatchObject({ path: join(dir, "config.yaml"), last_error: null });
  });

  it("an explicit check (what each poll interval does, without any fs.watch event) finds a change by its stamp", async () => {
    const dir = root();
    const path = join(dir, "config.json");
    writeFileSync(path, JSON.stringify({ labels: ["aa"] }));
    const { reloader, applied } = await start(dir);
    reloader.close(); // no watcher, no timer: only an explicit check (what each poll does) remains
    writeFileSync(path, JSON.stringify({ labels: ["bb"] }));
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    const late = new ConfigReloader({
      root: dir,
      initial: { ...(await loadDaemonConfig(dir)), stamp: "old" },
      apply: (config) => applied.push(config),
      refused: () => {},
      checkEverySeconds: () => 60,
    });
    await late.check();
    expect(applied.map((c) => c.labels)).toEqual([["bb"]]);
  });

  it("configChanges names each changed key, worker keys one level deep", () => {
    const base = {
      labels: [],
      max_ticket_bytes: 65_536,
      lease_stale_seconds: 300,
    } as unknown as DaemonConfig;
    const a = { ...base, worker: { maxConcurrent: 1, healthPort: 0 } } as unknown as DaemonConfig;
    const b = {
      ...base,
      labels: ["x"],
      worker: { maxConcurrent: 2, healthPort: 0 },
    } as unknown as DaemonConfig;
    expect(configChanges(a, b)).toEqual(['labels: [] → ["x"]', "worker.maxConcurrent: 1 → 2"]);
  });
});
