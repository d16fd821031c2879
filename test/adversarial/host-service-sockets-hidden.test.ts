/**
 * ADR 0069: a confined run (coder, verification command, the Observer's commands) shares the
 * host's network namespace, so before this every Unix socket under /run was open to it: a service
 * manager (systemd's private socket, the system bus, the user's session bus at
 * /run/user/<uid>/bus: `systemd-run --user` starts a process outside every namespace devflow
 * made), a container engine (/run/docker.sock), the user's keyring over D-Bus. Fix: LOCKDOWN covers
 * /run (and a real /var/run) with an empty tmpfs and binds back, read-only, only the files the run
 * needs (the resolver's configuration where /etc/resolv.conf leads there);
 * `DEVFLOW_EXPOSE_RUN=1` turns it off. Real processes, a real socket under /run, as root and as an
 * ordinary uid (devflow's BUILT modules through setpriv).
 *
 *     npm run build && npx vitest run test/adversarial/host-service-sockets-hidden.test.ts
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { mountNamespaceWorks, runFilesToKeep } from "../../src/process/mount-namespace.js";
import { runProcess } from "../../src/process/run-process.js";
import { confinedRunAsUser, userRepo } from "../support/mount-plan-as-user.js";
import { canDropToAnotherUid, unusedUid } from "../support/scan-as-user.js";

const root = process.getuid?.() === 0;
const made: string[] = [];
const runDir = `/run/devflow-test-${process.pid}`;
const socket = `${runDir}/service.sock`;
const kept = `${runDir}/resolv.conf`;
let server: net.Server | null = null;

/** What the run prints: a socket seen, the kept file's text, a name resolved, what /run holds. */
const PROBE = `test -S ${socket} && echo saw-socket; cat ${kept} 2>/dev/null; echo x 2>/dev/null > ${kept} && echo wrote-kept; echo "run-holds=$(ls -A /run | tr '\\n' ' ')"; getent hosts localhost >/dev/null && echo resolves`;

beforeAll(async () => {
  if (!root) return;
  mkdirSync(runDir, { recursive: true });
  chmodSync(runDir, 0o755);
  writeFileSync(kept, "nameserver 127.0.0.53\n", { mode: 0o644 });
  const listening = net.createServer().listen(socket);
  await new Promise((resolve) => listening.once("listening", resolve));
  server = listening;
});

// The DEVFLOW_EXPOSE_RUN=1 run writes the real file (nothing covers it there): each test starts from its text.
beforeEach(() => {
  if (root) writeFileSync(kept, "nameserver 127.0.0.53\n", { mode: 0o644 });
});

afterAll(() => {
  server?.close();
  rmSync(runDir, { recursive: true, force: true });
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

async function confinedAsRoot(env: NodeJS.ProcessEnv = {}): Promise<string> {
  const top = mkdtempSync(join(tmpdir(), "devflow-run-hidden-"));
  made.push(top);
  const hide = join(top, ".devflow");
  const expose = join(hide, "w");
  mkdirSync(expose, { recursive: true });
  const saved = process.env.DEVFLOW_EXPOSE_RUN;
  Object.assign(process.env, env);
  try {
    const run = await runProcess({
      command: PROBE,
      shell: true,
      cwd: expose,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      timeoutMs: 20_000,
      confine: true,
      mounts: { readOnly: top, hide, expose, runFiles: [kept] },
    });
    return run.output;
  } finally {
    if (saved === undefined) delete process.env.DEVFLOW_EXPOSE_RUN;
    else process.env.DEVFLOW_EXPOSE_RUN = saved;
  }
}

describe.runIf(root && mountNamespaceWorks())("host services under /run, devflow as root", () => {
  it("a confined run sees no socket under /run, only the file kept for it (read-only), and still resolves names", async () => {
    const output = await confinedAsRoot();
    expect(output).not.toContain("saw-socket");
    expect(output).toContain("nameserver 127.0.0.53");
    expect(output).not.toContain("wrote-kept");
    expect(output).toContain(`run-holds=devflow-test-${process.pid} `);
    expect(output).toContain("resolves");
  });

  it("DEVFLOW_EXPOSE_RUN=1 shows the host's /run as it is", async () => {
    expect(await confinedAsRoot({ DEVFLOW_EXPOSE_RUN: "1" })).toContain("saw-socket");
  });
});

describe.runIf(
  root &&
    canDropToAnotherUid() &&
    existsSync(new URL("../../dist/src/process/mount-namespace.js", import.meta.url)),
)("host services under /run, devflow as an ordinary user (ADR 0068)", () => {
  it("the run sees no socket under /run, only the kept file", () => {
    const uid = unusedUid(8);
    const r = userRepo(uid, made);
    const run = confinedRunAsUser(uid, r, PROBE, { runFiles: [kept] });
    expect(run.mode).toBe("user");
    expect(run.output).not.toContain("saw-socket");
    expect(run.output).toContain("nameserver 127.0.0.53");
    expect(run.output).toContain("resolves");
  });
});

describe("runFilesToKeep: the resolver's configuration when /etc/resolv.conf leads under /run", () => {
  it("keeps a regular file under /run a link leads to, nothing else", () => {
    const dir = mkdtempSync(join(tmpdir(), "devflow-resolv-"));
    made.push(dir);
    const file = join(dir, "resolv.conf");
    writeFileSync(file, "nameserver 1.1.1.1\n");
    expect(runFilesToKeep(file)).toEqual([]); // not under /run: visible anyway
    expect(runFilesToKeep(join(dir, "missing"))).toEqual([]);
    if (root) {
      const link = join(dir, "link");
      symlinkSync(kept, link);
      expect(runFilesToKeep(link)).toEqual([kept]);
      expect(runFilesToKeep(runDir)).toEqual([]); // a directory is never bound back
    }
  });
});
