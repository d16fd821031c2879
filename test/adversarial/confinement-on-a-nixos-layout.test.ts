/**
 * confinement-lost-on-nixos (the NixOS gap ADR 0069 recorded). On NixOS `/usr/bin` holds only
 * `env` and `/bin` only `sh`; every other program is a link under `/run/current-system/sw/bin`
 * into `/nix/store`, and that directory is on every user's PATH. The host-service cover (an empty
 * tmpfs on /run) took both away: the confinement's own script ran `mkdir`, `dirname` and `mount`
 * by name after the cover, so the probe failed and every run got detection only; and a confined
 * command could no longer find the system's programs (`git`, `node`, `cat`).
 * Fix: the scripts run their tools from the tools' real directories (`confinementToolsPath`), and
 * `/run/current-system` is made again in the new /run as the link it was (`runLinksToKeep`).
 * Real processes: a private mount namespace (root only) in which /usr/bin and /usr/sbin hold only
 * what NixOS's do, and the tools are links under /run/current-system into a store directory; the
 * BUILT modules run there (probe + a confined command).
 *
 *     npm run build && npx vitest run test/adversarial/confinement-on-a-nixos-layout.test.ts
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runLinksToKeep } from "../../src/process/mount-namespace.js";
import { BUILT_PROCESS_MODULE } from "../support/mount-plan-as-user.js";

const root = process.getuid?.() === 0;
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const TOOLS = [
  "mount",
  "umount",
  "unshare",
  "setpriv",
  "mkdir",
  "dirname",
  "ln",
  "cat",
  "ls",
  "touch",
  "grep",
  "sh",
];

/** In the namespace: the probe's answer, then what a confined `cat` through the NixOS PATH printed. */
const CHILD = `
const { mountNamespaceWorks } = await import(process.env.MOUNT_NAMESPACE);
const { runProcess } = await import(process.env.RUN_PROCESS);
const works = mountNamespaceWorks();
const dir = process.env.CHECKOUT;
const run = await runProcess({
  command: "cat tracked.txt; ls /run",
  shell: true,
  cwd: dir,
  env: { PATH: "/run/current-system/sw/bin" },
  timeoutMs: 20000,
  confine: true,
  mounts: { readOnly: process.env.REPO, hide: process.env.HOME_DIR, expose: dir, runFiles: [] },
});
console.log(JSON.stringify({ works, output: run.output }));
`;

describe.runIf(process.platform === "linux" && root)("confinement on a NixOS layout", () => {
  it("probes, confines and keeps the system's programs for the command", () => {
    const top = mkdtempSync(join(tmpdir(), "devflow-nixos-"));
    made.push(top);
    const store = join(top, "nix", "store", "0000-system-path", "bin");
    const system = join(top, "nix", "store", "1111-nixos-system");
    const usrBin = join(top, "usr-bin");
    const emptySbin = join(top, "usr-sbin");
    for (const dir of [store, join(system, "sw"), usrBin, emptySbin]) mkdirSync(dir, { recursive: true });
    for (const tool of TOOLS)
      copyFileSync(tool === "sh" ? "/usr/bin/dash" : `/usr/bin/${tool}`, join(store, tool));
    const repo = join(top, "repo");
    const home = join(repo, ".devflow");
    const checkout = join(home, "worktrees", "t");
    mkdirSync(checkout, { recursive: true });
    writeFileSync(join(checkout, "tracked.txt"), "checkout-bytes\n");
    const child = join(top, "child.mjs");
    writeFileSync(child, CHILD);
    // NixOS: /bin/sh and /usr/bin/env only (node bound in for the test's own process), tools as
    // links under /run/current-system/sw/bin into the store; /usr/sbin empty.
    const setup = [
      "set -e",
      "mount -t tmpfs nixos-run /run",
      `ln -s ${system} /run/current-system`,
      `ln -s ${store} ${system}/sw/bin`,
      `cp /usr/bin/dash ${usrBin}/sh`,
      `cp /usr/bin/env ${usrBin}/env`,
      `: > ${usrBin}/node`,
      `mount --bind ${process.execPath} ${usrBin}/node`,
      `mount --bind ${emptySbin} /usr/sbin`,
      `mount --rbind ${usrBin} /usr/bin`,
      `exec /usr/bin/node ${child}`,
    ].join("\n");
    const result = spawnSync(
      "/usr/bin/unshare",
      ["--mount", "--propagation", "private", "/bin/sh", "-c", setup],
      {
        encoding: "utf8",
        timeout: 60_000,
        env: {
          PATH: "/run/current-system/sw/bin:/usr/bin",
          MOUNT_NAMESPACE: BUILT_PROCESS_MODULE("mount-namespace"),
          RUN_PROCESS: BUILT_PROCESS_MODULE("run-process"),
          CHECKOUT: checkout,
          REPO: repo,
          HOME_DIR: home,
          TMPDIR: process.env.TMPDIR ?? "/tmp",
        },
      },
    );
    expect(result.stderr, result.stderr).not.toMatch(/Error|not found|denied/);
    const line = result.stdout.trim().split("\n").at(-1) ?? "";
    const seen = JSON.parse(line) as { works: boolean; output: string };
    expect(seen.works).toBe(true);
    expect(seen.output).toContain("checkout-bytes");
    // The new /run holds the link and nothing of the host's.
    expect(seen.output.split("\n")).toContain("current-system");
    expect(readFileSync(join(checkout, "tracked.txt"), "utf8")).toBe("checkout-bytes\n");
  });
});

describe("runLinksToKeep: which links under /run are made again", () => {
  it("a link to an absolute path outside /run, nothing else", () => {
    const dir = mkdtempSync(join(tmpdir(), "devflow-run-links-"));
    made.push(dir);
    const pairs: [string, string][] = [
      ["store", "/nix/store/1111-nixos-system"],
      ["inside-run", "/run/user/0/bus"],
      ["relative", "../elsewhere"],
    ];
    for (const [name, target] of pairs) symlinkSync(target, join(dir, name));
    writeFileSync(join(dir, "file"), "not a link");
    const names = ["store", "inside-run", "relative", "file", "missing"].map((name) => join(dir, name));
    expect(runLinksToKeep(names)).toEqual([[join(dir, "store"), "/nix/store/1111-nixos-system"]]);
  });
});
