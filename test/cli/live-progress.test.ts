/**
 * Issue 11, "Silence while the coder works": `iterate` printed a line only when a node ended, so a
 * coder running for minutes showed nothing (no start line, elapsed time or transcript path), and
 * there was no colour, no --quiet and no way to tell a live run from a hung one in a log.
 * Fix: src/cli/human-progress.ts. These tests run the real CLI (`node --import tsx src/cli/main.ts`)
 * with a real coder process that takes a few seconds and prints what it does, once on a real
 * pseudo-terminal (@lydell/node-pty) and once piped.
 */
import { spawn as spawnChild } from "node:child_process";
import { join } from "node:path";
import { spawn as spawnPty } from "@lydell/node-pty";
import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { coderScript, DEMO_REQUEST, demoCassette, writeCassette } from "../support/lane-harness.js";
import { screenOf } from "../support/screen.js";

const MAIN = join(PACKAGE_ROOT, "src", "cli", "main.ts");
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for terminal escapes
const ANY_ESCAPE = /\u001b/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for colour (SGR) sequences
const COLOUR = /\u001b\[[0-9;]*m/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing colour (SGR) sequences
const COLOURS = /\u001b\[[0-9;]*m/g;
/** Each run starts the CLI under tsx and runs the whole lane: slow on a shared 2-core machine. */
const RUN_TIMEOUT_MS = 240_000;

/** A coder that takes ~4 s, says what it is doing on stdout, then applies the real fix. */
const SLOW_CODER = `
import { readFileSync, writeFileSync } from "node:fs";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
console.log("reading the prompt");
await sleep(1500);
console.log("editing src/csv-import.js now");
await sleep(2500);
const f = "src/csv-import.js";
writeFileSync(f, readFileSync(f, "utf8").replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(row.email.trim()))"));
console.log("Trimmed the email before validating it.");
`;

/** A child's environment without the caller's colour settings, plus `extra`. */
function envWith(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !["NO_COLOR", "FORCE_COLOR", "DEVFLOW_PROGRESS_INTERVAL", "CI"].includes(k))
      env[k] = v;
  }
  return { ...env, ...extra };
}

function iterateArgs(extra: string[]): string[] {
  const repo = createFixtureRepo("csv-import");
  return [
    "--import",
    "tsx",
    MAIN,
    "iterate",
    "--repo",
    repo,
    "--coder",
    coderScript(SLOW_CODER),
    "--replay",
    writeCassette(demoCassette()),
    "--no-input",
    ...extra,
    DEMO_REQUEST,
  ];
}

/** The CLI on a pseudo-terminal: everything it wrote, with when each chunk arrived. */
function onTerminal(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; raw: string; chunks: { at: number; text: string }[] }>((resolve) => {
    const term = spawnPty(process.execPath, args, {
      cols: 200,
      rows: 40,
      cwd: PACKAGE_ROOT,
      env: envWith(env),
    });
    const chunks: { at: number; text: string }[] = [];
    term.onData((text) => chunks.push({ at: Date.now(), text }));
    term.onExit(({ exitCode }) =>
      resolve({ code: exitCode, raw: chunks.map((c) => c.text).join(""), chunks }),
    );
  });
}

/** The CLI with stdout and stderr on pipes (a CI log). */
function piped(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawnChild(process.execPath, args, {
      cwd: PACKAGE_ROOT,
      env: envWith(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += String(d);
    });
    child.stderr.on("data", (d) => {
      err += String(d);
    });
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

describe.concurrent("progress of a real run", () => {
  it(
    "on a terminal: a live line with elapsed time, attempt, coder activity and transcript, under permanent finished lines",
    async () => {
      const run = await onTerminal(iterateArgs([]), {});
      expect(run.code, run.raw).toBe(0);
      // The live line of the coder, redrawn while it runs: the node's elapsed time moves on.
      const elapsedSeen = new Set(
        [...run.raw.matchAll(/code {6}(\d+)s \(run \d+s\) · attempt-001/g)].map((m) => m[1]),
      );
      expect(elapsedSeen.size, run.raw).toBeGreaterThanOrEqual(3);
      expect(run.raw.replace(COLOURS, "")).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] code /);
      expect(run.raw).toMatch(/transcript \S+attempts\/attempt-001\/coder_transcript\.log/);
      // The coder's own latest activity, from its output while it runs.
      expect(run.raw.replace(COLOURS, "")).toContain("↳ editing src/csv-import.js now");
      // Colour is on by default on a terminal.
      expect(run.raw).toMatch(COLOUR);
      // What stays on screen: every finished node's line and the summary; the live line is gone.
      const screen = screenOf(run.raw).filter((l) => l !== "");
      const finished = screen.filter((l) => /^[a-z]+ +[✓•✗] /.test(l)).map((l) => l.split(" ")[0]);
      expect(finished).toEqual(["frame", "observe", "readiness", "code", "verify", "gate", "commit"]);
      expect(
        screen.some((l) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|transcript |↳/.test(l)),
        screen.join("\n"),
      ).toBe(false);
      // The summary ends with its tokens row and, after completed, how to take the result (ADR 0045).
      expect(screen.at(-3)).toMatch(/^tokens/);
      expect(screen.at(-1)).toMatch(/^to review it first: git diff HEAD\.\.\.devflow\//);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "piped: plain lines only, a start line with the transcript, heartbeat lines, no escapes",
    async () => {
      const run = await piped(iterateArgs(["--progress-interval", "1"]), {});
      expect(run.code, run.err).toBe(0);
      expect(run.err).not.toMatch(ANY_ESCAPE);
      expect(run.err).toMatch(
        /^code {6}… attempt-001 started, transcript: \S+\/attempts\/attempt-001\/coder_transcript\.log$/m,
      );
      // The coder runs ~4 s with a 1 s interval: the log shows it alive, with what it last did.
      const beats = run.err.match(/^code {6}… running \d+s \(run \d+s\) · attempt-001.*$/gm) ?? [];
      expect(beats.length, run.err).toBeGreaterThanOrEqual(2);
      expect(
        beats.some((b) => b.endsWith("last: editing src/csv-import.js now")),
        beats.join("\n"),
      ).toBe(true);
      expect(run.err).toMatch(/^commit +✓ /m);
      expect(run.err).toMatch(/^verdict +completed$/m);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "on a terminal with NO_COLOR: the live line still, but no colour",
    async () => {
      const run = await onTerminal(
        [MAIN, "demo"].flatMap((a, i) => (i === 0 ? ["--import", "tsx", a] : [a])),
        {
          NO_COLOR: "1",
        },
      );
      expect(run.code, run.raw).toBe(0);
      expect(run.raw).toContain("\u001b[2K"); // log-update redrew the live line
      expect(run.raw).not.toMatch(COLOUR);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "--quiet --no-color beat FORCE_COLOR=1: only the summary, no escapes",
    async () => {
      const run = await piped(["--import", "tsx", MAIN, "demo", "--quiet", "--no-color"], {
        FORCE_COLOR: "1",
      });
      expect(run.code, run.err).toBe(0);
      expect(run.err).not.toMatch(ANY_ESCAPE);
      expect(run.err.trimStart()).toMatch(/^verdict +completed\n/);
      expect(run.err).not.toMatch(/^(frame|code|sample repo)/m);
    },
    RUN_TIMEOUT_MS,
  );
});
