import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach } from "vitest";
import { createFixtureRepo } from "../../../src/fixtures/create-fixture-repo.js";
import type { Cassette } from "../../../src/models/cassette.js";
import { createModelGateway } from "../../../src/models/create-gateway.js";
import { coderScript, demoCassette, tempDir, writeCassette } from "../../support/lane-harness.js";

/**
 * Fresh csv-import fixture repos (and scratch dirs) for one test file, removed after each test, or
 * after all of them with `removeAfter: "all"` (a file whose tests run concurrently: removing after
 * each would remove a running test's repository). Call at the top level of the test file.
 */
export function useScratch(removeAfter: "each" | "all" = "each"): { repo: () => string; dir: () => string } {
  const made: string[] = [];
  (removeAfter === "each" ? afterEach : afterAll)(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    repo: () => {
      const repo = createFixtureRepo("csv-import");
      made.push(join(repo, ".."));
      return repo;
    },
    dir: () => {
      const dir = tempDir();
      made.push(dir);
      return dir;
    },
  };
}

/** A cassette file holding exactly these calls. */
export function cassetteWith(calls: Cassette["calls"]): string {
  const cassette = demoCassette();
  cassette.calls = calls;
  return writeCassette(cassette);
}

/** A replaying gateway that answers exactly these calls. */
export function replayGateway(calls: Cassette["calls"]) {
  return createModelGateway({ mode: "replay", cassettePath: cassetteWith(calls) });
}

/** A router answer. */
export const route = (r: "idea" | "insight" | "iterate" | "neither") => ({
  structured: { route: r, rationale: `the message asks for ${r}`, confidence: 0.9 },
});

/** The demo cassette's framer answer (the csv-import email-trim task). */
export function framedAnswer() {
  const framed = demoCassette().calls.framer?.[0];
  if (!framed || !("structured" in framed)) throw new Error("demo cassette lost its framer answer");
  return framed;
}

/** The demo lane's calls after framing: the observer's four turns, the iterator and the critic. */
export function laneCalls(): Cassette["calls"] {
  const demo = demoCassette().calls;
  return { observer: demo.observer ?? [], iterator: demo.iterator ?? [], critic: demo.critic ?? [] };
}

/** The demo framing, unsure: it asks `question` before anything else happens. */
export function unsureFraming(question: string) {
  return {
    structured: {
      ...framedAnswer().structured,
      blocking_unknowns: [question],
      recommended_next_step: "needs_more_context",
    },
  };
}

/** A `command:` coder that writes its pid to `pidFile` and then hangs (until it is killed). */
export function hangingCoder(markerFile: string): string {
  return coderScript(`
    import { writeFileSync } from "node:fs";
    // Its script path, not its pid: the coder runs in a PID namespace with a /proc of its own
    // (ADR 0025, 0031), where its pid means nothing to the test. coderRunning() finds it by path.
    writeFileSync(${JSON.stringify(markerFile)}, process.argv[1]);
    setTimeout(() => {}, 600_000);
  `);
}

/** Whether a live (not zombie) process on this machine runs the script a hangingCoder wrote to `markerFile`. */
export function coderRunning(markerFile: string): boolean {
  const script = readFileSync(markerFile, "utf8");
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (cmdline.split("\0").includes(script) && isRunning(Number(entry))) return true;
  }
  return false;
}

/**
 * Whether a process still runs. A killed coder whose parent shell died first is reparented to
 * init and lingers as a zombie until init reaps it: a zombie counts as stopped (Linux /proc).
 */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z";
  } catch {
    return false;
  }
}
