import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { baseEnv } from "../../process/env.js";
import { findExecutable } from "../../process/find-executable.js";
import { runProcess } from "../../process/run-process.js";
import type { ProcessRunResult } from "../../process/types.js";
import { createRedactor, secretsFromEnv } from "../../util/redact.js";
import { registerSecret, secretEntriesFromEnv } from "../../util/secrets.js";
import { reportActivity } from "../activity.js";
import {
  CODER_GROUP_FILE,
  type CoderBackend,
  type CoderOutcome,
  type CoderRunRequest,
  type CoderRunResult,
  type CoderUnavailableError,
  coderUnavailableError,
} from "../contract.js";
import { BATCH_ENV, mergeEnv, pickEnv } from "./env.js";
import type { CliBackendSpec, CliCoderProbe, CliRuntimeOptions, Interpretation, SourceEnv } from "./types.js";

export const TRANSCRIPT_FILE = "coder_transcript.log";
/** The per-run config home inside the request's scratch dir (never the attempt dir); removed after the run (it can hold the CLI's copy of the env). */
export const CONFIG_HOME_DIR = "coder-home";
export const DEFAULT_VERSION_TIMEOUT_MS = 10_000;

const VERSION = /\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]+)?/;

/** The first version-looking token of `--version` output (`2.1.332 (Claude Code)`, `aider 0.86.2`, ...). */
export function parseVersion(output: string): string | null {
  return VERSION.exec(output)?.[0] ?? null;
}

/**
 * Base allowlist (PATH, HOME, locale, CA certs) + batch settings + the backend's credentials, then
 * the caller's extras and the backend's own variables; the config home is laid last so that no
 * caller can point a run back at a shared home.
 */
function childEnv(
  spec: CliBackendSpec,
  source: SourceEnv,
  configHome: string,
  requestEnv: Record<string, string> = {},
  preparedEnv: Record<string, string> = {},
): Record<string, string> {
  return mergeEnv(
    baseEnv({}, source),
    BATCH_ENV,
    pickEnv(source, spec.passEnv),
    requestEnv,
    preparedEnv,
    spec.homeEnv(configHome),
  );
}

async function writeConfigFiles(files: ReadonlyArray<{ path: string; content: string }>): Promise<void> {
  for (const file of files) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.content, { mode: 0o600 });
  }
}

function statusOf(run: ProcessRunResult, interpretation: Interpretation, timeoutMs: number): CoderOutcome {
  // A run that was stopped is reported as stopped, whatever the CLI managed to print before.
  if (run.timedOut)
    return {
      status: "timeout",
      error: `the coder did not finish within ${timeoutMs} ms; its process group was killed`,
    };
  if (run.aborted)
    return { status: "aborted", error: "the run was aborted; the coder's process group was killed" };
  return interpretation.status === "ok"
    ? { status: "ok", error: null }
    : { status: interpretation.status, error: interpretation.error };
}

class CliBackend implements CoderBackend {
  readonly name: string;
  private readonly source: SourceEnv;

  constructor(
    private readonly spec: CliBackendSpec,
    private readonly options: CliRuntimeOptions,
  ) {
    this.name = spec.name;
    this.source = options.sourceEnv ?? process.env;
  }

  private locate(): string | null {
    return findExecutable(this.options.binary ?? this.spec.binary, baseEnv({}, this.source).PATH);
  }

  private missingBinary(): CoderUnavailableError {
    const command = this.options.binary ?? this.spec.binary;
    return coderUnavailableError(
      "CODER_NOT_INSTALLED",
      `The ${this.name} coder cannot run: no "${command}" executable was found on PATH. ${this.spec.installHint}`,
      this.spec.installHint,
    );
  }

  async probe(): Promise<CliCoderProbe> {
    const binaryPath = this.locate();
    const authConfigured = this.spec.authConfigured(this.source);
    const misconfigured = this.spec.misconfiguration;
    const configureHint =
      [
        misconfigured === undefined ? null : `${misconfigured.reason} ${misconfigured.hint}`,
        authConfigured ? null : this.spec.authHint,
      ]
        .filter((part) => part !== null)
        .join(" ") || null;
    if (binaryPath === null) {
      const hint = [this.spec.installHint, configureHint].filter((part) => part !== null).join(" ");
      return { name: this.name, installed: false, version: null, hint, binaryPath, authConfigured };
    }
    // `--version` gets a throwaway config home too, so probing never creates or updates the user's.
    const home = await mkdtemp(join(tmpdir(), `devflow-probe-${this.name}-`));
    try {
      const run = await runProcess({
        command: binaryPath,
        args: ["--version"],
        cwd: home,
        env: childEnv(this.spec, this.source, home),
        stdin: "closed",
        timeoutMs: this.options.versionTimeoutMs ?? DEFAULT_VERSION_TIMEOUT_MS,
        killGraceMs: 500,
        maxOutputBytes: 64 * 1024,
      });
      const version = run.exitCode === 0 ? parseVersion(run.output) : null;
      const versionHint =
        version === null
          ? `\`${binaryPath} --version\` did not report a version (${run.timedOut ? "timed out" : `exit code ${run.exitCode ?? "none"}`}); reinstall it. ${this.spec.installHint}`
          : null;
      const hint = [versionHint, configureHint].filter((part) => part !== null).join(" ") || null;
      return { name: this.name, installed: true, version, hint, binaryPath, authConfigured };
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }

  async run(request: CoderRunRequest): Promise<CoderRunResult> {
    const binaryPath = this.locate();
    if (binaryPath === null) throw this.missingBinary();
    const misconfigured = this.spec.misconfiguration;
    if (misconfigured !== undefined) {
      throw coderUnavailableError(
        "CODER_MISCONFIGURED",
        `The ${this.name} coder cannot run: ${misconfigured.reason}`,
        misconfigured.hint,
      );
    }
    // Without a credential these CLIs wait for an interactive sign-in or fail late; say so up front.
    if (!this.spec.authConfigured({ ...this.source, ...request.env })) {
      throw coderUnavailableError(
        "CODER_MISCONFIGURED",
        `The ${this.name} coder has no credentials configured. ${this.spec.authHint}`,
        this.spec.authHint,
      );
    }
    // In the per-run scratch dir, not the attempt dir: the CLI may write its home, never devflow's artifacts.
    const configHome = join(request.scratchDir, CONFIG_HOME_DIR);
    await rm(configHome, { recursive: true, force: true });
    await mkdir(configHome, { recursive: true, mode: 0o700 });
    try {
      const prepared = this.spec.prepare({
        prompt: request.prompt,
        worktree: request.worktree,
        configHome,
        model: request.model,
        sourceEnv: { ...this.source, ...request.env },
      });
      await writeConfigFiles(prepared.files);
      const env = childEnv(this.spec, this.source, configHome, request.env, prepared.env);
      // The credentials handed to the coder are secrets for the whole run (ADR 0030), also when
      // they came from a source other than devflow's own environment: registered, every boundary knows them.
      for (const { name, value } of secretEntriesFromEnv(env)) registerSecret(name, value);
      const transcriptPath = join(request.attemptDir, TRANSCRIPT_FILE);
      const activity = reportActivity(request.onActivity);
      const activityOf = this.spec.activity;
      const run = await runProcess({
        command: binaryPath,
        args: prepared.args,
        cwd: request.worktree,
        env,
        stdin: prepared.stdin,
        timeoutMs: request.timeoutMs,
        transcriptPath,
        groupIdFile: join(request.attemptDir, CODER_GROUP_FILE),
        confine: true,
        ...(request.runMarker !== undefined ? { runMarker: request.runMarker } : {}),
        ...(request.mounts !== undefined ? { mounts: request.mounts } : {}),
        onStdoutLine: (line) => {
          prepared.onStdoutLine(line);
          if (activityOf !== undefined && request.onActivity !== undefined)
            activity(safely(activityOf, line));
        },
        ...(request.signal !== undefined ? { signal: request.signal } : {}),
        ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
        ...(this.options.maxOutputBytes !== undefined ? { maxOutputBytes: this.options.maxOutputBytes } : {}),
      });
      if (run.spawnError !== null) {
        if (run.spawnError.includes("ENOENT")) throw this.missingBinary();
        return this.result(
          run,
          transcriptPath,
          env,
          {
            status: "error",
            finalMessage: "",
            usage: null,
            error: `${this.name} could not be started: ${run.spawnError}`,
          },
          request.timeoutMs,
        );
      }
      return this.result(run, transcriptPath, env, await prepared.interpret(run), request.timeoutMs);
    } finally {
      await rm(configHome, { recursive: true, force: true });
    }
  }

  /** Output files (Junie's JSON) bypass the runner's redaction, so every text that leaves is redacted here. */
  private result(
    run: ProcessRunResult,
    transcriptPath: string,
    env: Record<string, string>,
    interpretation: Interpretation,
    timeoutMs: number,
  ): CoderRunResult {
    const redact = createRedactor(secretsFromEnv(env));
    const outcome = statusOf(run, interpretation, timeoutMs);
    return {
      ...(outcome.status === "ok" ? outcome : { status: outcome.status, error: redact(outcome.error) }),
      exitCode: run.exitCode,
      finalMessage: redact(interpretation.finalMessage),
      transcriptPath,
      durationMs: run.durationMs,
      usage: interpretation.usage,
    };
  }
}

/** A describer that throws on an odd line shows nothing for it; it never fails the run. */
function safely(activityOf: (line: string) => string | null, line: string): string | null {
  try {
    return activityOf(line);
  } catch {
    return null;
  }
}

/** A CoderBackend for one CLI: probe, per-run config home, hardened spawn, interpretation, redaction. */
export function createCliBackend(
  spec: CliBackendSpec,
  options: CliRuntimeOptions = {},
): CoderBackend & {
  probe(): Promise<CliCoderProbe>;
} {
  return new CliBackend(spec, options);
}
