import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { outsideExposure } from "./seam-outside-files.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const scratch = (base = tmpdir()) => {
  const dir = mkdtempSync(join(base, "devflow-outside-"));
  dirs.push(dir);
  return dir;
};

// Reviews of stop 37 (ADR 0074): a config and a preload written above the repository were loaded by
// the seam's runner (third); a preload that opened itself 'r+', a config linked into /dev/shm, and
// files with data names passed the first version (fourth). Mutations: the ctime comparison off →
// red; `written` trusted over the birth time → red; "/dev/" back among the namespace's own → red.
describe("outsideExposure: files loaded from outside the checkout, changed after the pinning, not the run's own", () => {
  it("names what the coder could have planted, whatever its name, and leaves the run's own and older files", async () => {
    const dir = scratch();
    const shm = scratch("/dev/shm");
    const checkout = join(dir, "repo", ".devflow", "verify", "t");
    mkdirSync(checkout, { recursive: true });
    const at = (name: string) => join(dir, name);
    writeFileSync(at("old.config.mjs"), "export default {};\n");
    await sleep(30);
    const sinceMs = Date.now();
    await sleep(30);
    // Planted by the coder after the pinning, before the run.
    for (const name of ["vitest.config.mjs", "preload-opened-r+.cjs", "bundle.data"])
      writeFileSync(at(name), "x\n");
    writeFileSync(join(shm, "cfg"), "x\n");
    await sleep(30);
    const runStartMs = Date.now();
    await sleep(30);
    // Made by the run itself.
    writeFileSync(at("cache.json"), "x\n");
    writeFileSync(join(checkout, "new.js"), "x\n");
    const files = [
      at("vitest.config.mjs"),
      at("preload-opened-r+.cjs"),
      at("bundle.data"),
      join(shm, "cfg"),
      at("old.config.mjs"),
      at("cache.json"),
      at("deleted.js"),
      at("deleted-own.tmp"),
      join(dir, "run-tmp", "vite-cache", "gone.js"),
      join(dir, "verifiers", "seam.log.out", "ledger.key"),
      join(checkout, "new.js"),
      "/proc/self/status",
    ];
    const finding = outsideExposure({
      checkoutDir: checkout,
      // The planted preload opened itself to write: that makes it no file of the run's.
      trace: { kind: "traced", files, written: [at("preload-opened-r+.cjs"), at("deleted-own.tmp")] },
      sinceMs,
      runStartMs,
      // The run's own temp dir, removed before devflow looks: nothing in it counts; nor does devflow's
      // own output of the run (the ledger key it writes before the run and removes after: the demo).
      runTempDir: join(dir, "run-tmp"),
      logPath: join(dir, "verifiers", "seam.log"),
      // As if this temp dir had not been the run's private copy (ADR 0075): its gone files count.
      privateTemps: [],
    });
    const named = [
      at("bundle.data"),
      `${at("deleted.js")} (gone)`,
      at("preload-opened-r+.cjs"),
      at("vitest.config.mjs"),
      join(shm, "cfg"),
    ].sort();
    expect(finding).toContain(`(${named.slice(0, 5).join(", ")})`);
    for (const left of [
      "old.config.mjs",
      "cache.json",
      "deleted-own.tmp",
      "run-tmp",
      "ledger.key",
      "new.js",
      "/proc/",
    ])
      expect(finding).not.toContain(left);
  });

  it("leaves a gone file inside a temp root the run had a private copy of: it was the run's own (ADR 0075)", () => {
    const dir = scratch();
    const checkout = join(dir, "repo", ".devflow", "verify", "t");
    mkdirSync(checkout, { recursive: true });
    const input = {
      checkoutDir: checkout,
      trace: { kind: "traced" as const, files: [join(dir, "renamed-cache.js")], written: [] },
      sinceMs: 0,
      runStartMs: Date.now(),
    };
    expect(outsideExposure({ ...input, privateTemps: [dir] })).toBeNull();
    expect(outsideExposure({ ...input, privateTemps: ["/elsewhere"] })).toContain("renamed-cache.js (gone)");
  });

  it("says nothing without a trace or without the pinning time", () => {
    const none = { checkoutDir: "/x", sinceMs: 0, runStartMs: 0 };
    expect(outsideExposure({ ...none, trace: undefined })).toBeNull();
    expect(outsideExposure({ ...none, trace: { kind: "unavailable", reason: "no strace" } })).toBeNull();
    expect(
      outsideExposure({
        ...none,
        trace: { kind: "traced", files: ["/y/a.js"], written: [] },
        sinceMs: undefined,
      }),
    ).toBeNull();
  });
});
