import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { outsideExposure } from "./seam-outside-files.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Review of stop 37 (ADR 0074): a config and a preload written above the repository were loaded by
// the seam's runner. Mutation: the ctime comparison turned off (`changedAt >= sinceMs` → false) → red.
describe("outsideExposure: code or configuration loaded from outside the checkout, newer than the contract", () => {
  it("names what changed after the pinning and is gone, not what is older, the run's own, data, or inside", async () => {
    dir = mkdtempSync(join(tmpdir(), "devflow-outside-"));
    const checkout = join(dir, "repo", ".devflow", "verify", "t");
    mkdirSync(checkout, { recursive: true });
    const at = (name: string) => join(dir, name);
    writeFileSync(at("old.config.mjs"), "export default {};\n");
    await sleep(30);
    const sinceMs = Date.now();
    await sleep(30);
    for (const name of ["vitest.config.mjs", "preload.cjs", ".mocharc", "cache.json", "cases.txt"])
      writeFileSync(at(name), "x\n");
    writeFileSync(join(checkout, "new.js"), "x\n");
    const files = [
      at("vitest.config.mjs"),
      at("preload.cjs"),
      at(".mocharc"),
      at("old.config.mjs"),
      at("cache.json"), // written by the run itself
      at("cases.txt"), // data: not judged here
      at("deleted.js"), // loaded, then gone
      join(checkout, "new.js"),
      "/proc/self/status",
    ];
    const finding = outsideExposure({
      checkoutDir: checkout,
      trace: { kind: "traced", files, written: [at("cache.json")] },
      sinceMs,
    });
    expect(finding).toContain(
      `(${at(".mocharc")}, ${at("deleted.js")} (gone), ${at("preload.cjs")}, ${at("vitest.config.mjs")})`,
    );
    expect(finding).not.toContain("old.config.mjs");
    expect(finding).not.toContain("new.js");
  });

  it("says nothing without a trace or without the pinning time", () => {
    expect(outsideExposure({ checkoutDir: "/x", trace: undefined, sinceMs: 0 })).toBeNull();
    expect(
      outsideExposure({ checkoutDir: "/x", trace: { kind: "unavailable", reason: "no strace" }, sinceMs: 0 }),
    ).toBeNull();
    expect(
      outsideExposure({
        checkoutDir: "/x",
        trace: { kind: "traced", files: ["/y/a.js"], written: [] },
        sinceMs: undefined,
      }),
    ).toBeNull();
  });
});
