import { resolve } from "node:path";
import { type SimpleGit, simpleGit } from "simple-git";
import { DevflowError } from "../errors/index.js";
import { errorText } from "./errors.js";
import { type GitProcessResult, runGitProcess } from "./git-process.js";

/**
 * Inherited variables that would point git at another repository/index (e.g. when devflow is
 * started from a git hook) or make it open an editor, a pager or an external diff tool.
 */
const STRIPPED_ENV = new Set([
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "EDITOR",
  "VISUAL",
  "GIT_PAGER",
  "PAGER",
  "GIT_EXTERNAL_DIFF",
  // Config and attributes from the environment (a CI's, or one a coder left for a later run):
  // devflow's git reads only the repository's own config (see ISOLATED_CONFIG_ENV).
  "GIT_CONFIG",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_ATTR_NOSYSTEM",
  "GIT_ATTR_SOURCE",
  // Object/ref redirections: replace refs and grafts would make devflow read other objects.
  "GIT_REPLACE_REF_BASE",
  "GIT_NO_REPLACE_OBJECTS",
  "GIT_GRAFT_FILE",
  "GIT_SHALLOW_FILE",
  "GIT_QUARANTINE_PATH",
  // simple-git treats an inherited PREFIX as a config-path override and refuses to run.
  "PREFIX",
]);

/** What is stripped even when the user's config is kept: redirections, editors, pagers. */
const REDIRECTING_ENV = new Set(
  [...STRIPPED_ENV].filter((key) => !key.startsWith("GIT_CONFIG") && key !== "GIT_ATTR_NOSYSTEM"),
);

/**
 * simple-git refuses to run when the environment carries these; here they come from the user's
 * own shell (an askpass helper, a custom ssh command, a CI's GIT_CONFIG_*), which we honour.
 * Our own arguments never carry such options, and URLs are always passed after `--`.
 */
const INHERITED_ENV_ALLOWANCES = {
  allowUnsafeAskPass: true,
  allowUnsafeSshCommand: true,
  allowUnsafeConfigPaths: true,
  allowUnsafeConfigEnvCount: true,
  allowUnsafeGitProxy: true,
  allowUnsafeCredentialHelper: true,
} as const;

/** Output is parsed, so a user's `color.ui=always` must not put escape codes into it. */
const NEUTRAL_CONFIG = ["color.ui=false"];

/**
 * devflow's own plumbing (worktree add, snapshots, diffs, commits) runs no hooks and no fsmonitor
 * daemon: a hook in the coder's checkout is one it planted, one in the user's repository is the
 * user's (ADR 0020, 0025). Only runGit gets them; simple-git calls (clone, repo checks) run
 * before any coder and in fresh clones.
 */
const NO_HOOKS_CONFIG = ["core.hooksPath=/dev/null", "core.fsmonitor=false"];

export interface GitOptions {
  /** Extra environment variables for this git process (they win over the inherited ones). */
  env?: Record<string, string>;
  /** Extra `-c key=value` settings. */
  config?: string[];
  /** Lets this call set `core.hooksPath` (simple-git blocks it by default). */
  allowHooksPathOverride?: boolean;
  /**
   * Lets this call pass `--template=` and set `core.fsmonitor` (simple-git blocks both by default;
   * gitAt only): for turning them off, never for pointing them at a program.
   */
  allowProgramOverrides?: boolean;
  /** Text for git's stdin (runGit only; e.g. the revisions `pack-objects --revs` reads). */
  input?: string;
  /** A file for git's stdin (runGit only; e.g. the pack `index-pack --stdin` reads). */
  inputFile?: string;
  /** Keep the user's global config (gitAt only; see GitEnvOptions). */
  userConfig?: boolean;
}

/**
 * devflow's git reads no global or system config and no global or system attributes (review row
 * 1): HOME is writable to the coder (and to every test command), so `~/.gitconfig`,
 * `~/.config/git/{config,attributes,ignore}` and /etc/gitconfig are the coder's to write, and a
 * smudge filter there would give the verification checkout other bytes than the tree devflow
 * verifies and commits. `core.attributesFile`/`core.excludesFile` default to files under
 * XDG_CONFIG_HOME/HOME even without a global config, so they are pointed at /dev/null as well
 * (through GIT_CONFIG_COUNT: the environment is the one place every git child goes through).
 * Replace refs (`refs/replace/*` in the user's repository) are not followed either. Only the
 * repository's own config applies: devflow writes its repositories' config itself, the user's
 * repository's config is fingerprinted. Identity never comes from config (commits.ts sets it).
 */
const ISOLATED_CONFIG_ENV: Record<string, string> = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_NO_REPLACE_OBJECTS: "1",
  GIT_CONFIG_COUNT: "2",
  GIT_CONFIG_KEY_0: "core.attributesFile",
  GIT_CONFIG_VALUE_0: "/dev/null",
  GIT_CONFIG_KEY_1: "core.excludesFile",
  GIT_CONFIG_VALUE_1: "/dev/null",
};

/** Numbered config variables (`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`), stripped with GIT_CONFIG_COUNT. */
const NUMBERED_CONFIG = /^GIT_CONFIG_(KEY|VALUE)_\d+$/;

export interface GitEnvOptions {
  /**
   * Keep the user's global/system config and the inherited GIT_CONFIG_* (credential helpers,
   * proxies, `url.*.insteadOf`, ssh command). Only for talking to a remote (`clone`), never for
   * a repository a coder or a test command could have written.
   */
  userConfig?: boolean;
}

/** The environment every git child gets: inherited, sanitized, isolated from global config, never prompting on a terminal. */
export function gitEnv(
  extra: Record<string, string> = {},
  options: GitEnvOptions = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    const upper = key.toUpperCase();
    if (
      options.userConfig === true
        ? REDIRECTING_ENV.has(upper)
        : STRIPPED_ENV.has(upper) || NUMBERED_CONFIG.test(upper)
    )
      continue;
    env[key] = value;
  }
  // A URL that needs credentials must fail instead of waiting for input nobody will type.
  env.GIT_TERMINAL_PROMPT = "0";
  env.GCM_INTERACTIVE = "never";
  return { ...env, ...(options.userConfig === true ? {} : ISOLATED_CONFIG_ENV), ...extra };
}

/**
 * The git dir of each task checkout, recorded when devflow created or opened it (before any coder
 * ran). devflow's own git in that checkout runs with explicit GIT_DIR/GIT_WORK_TREE, so a `.git`
 * file the coder rewrote (`gitdir: <its own repo>`) is never followed (ADR 0022).
 */
const PINNED_GIT_DIRS = new Map<string, string>();

/** From now on devflow's git in `worktree` uses `gitDir`, whatever `<worktree>/.git` says. */
export function pinGitDir(worktree: string, gitDir: string): void {
  PINNED_GIT_DIRS.set(resolve(worktree), resolve(gitDir));
}

/** The git dir pinned for `worktree`, or null. */
export function pinnedGitDir(worktree: string): string | null {
  return PINNED_GIT_DIRS.get(resolve(worktree)) ?? null;
}

/** GIT_DIR/GIT_WORK_TREE for a pinned checkout (empty for any other directory). */
function pinnedGitEnv(baseDir: string): Record<string, string> {
  const gitDir = pinnedGitDir(baseDir);
  return gitDir ? { GIT_DIR: gitDir, GIT_WORK_TREE: resolve(baseDir) } : {};
}

/** A simple-git instance rooted at `baseDir` that treats any non-zero exit as an error. */
export function gitAt(baseDir: string, options: GitOptions = {}): SimpleGit {
  return simpleGit({
    baseDir,
    config: [...NEUTRAL_CONFIG, ...(options.config ?? [])],
    unsafe: {
      ...INHERITED_ENV_ALLOWANCES,
      allowUnsafeHooksPath: options.allowHooksPathOverride === true,
      allowUnsafeTemplateDir: options.allowProgramOverrides === true,
      allowUnsafeFsMonitor: options.allowProgramOverrides === true,
    },
    // simple-git's default only fails on a non-zero exit that also wrote to stderr.
    errors(error, result) {
      if (error) return error;
      if (result.exitCode === 0) return undefined;
      return Buffer.concat([...result.stdErr, ...result.stdOut]);
    },
  }).env(gitEnv({ ...pinnedGitEnv(baseDir), ...options.env }, { userConfig: options.userConfig === true }));
}

/**
 * Runs `git <args>` in `baseDir` and returns stdout; failures become a GIT_FAILED DevflowError naming the command.
 * Plumbing calls on the hot path (snapshots, diffs, logs) go straight to git (git-process.ts, no
 * execa): simple-git adds a fixed 50 ms wait to every command that prints nothing, which was a
 * third of devflow's per-attempt overhead (measured by `npm run bench`). Same environment and
 * config as gitAt.
 */
export async function runGit(baseDir: string, args: string[], options: GitOptions = {}): Promise<string> {
  const result = await spawnGit(baseDir, args, options);
  if (result.failed) {
    const detail = `${result.stderr}${result.stdout}`.trim() || result.shortMessage;
    throw gitFailure(baseDir, args, new Error(detail));
  }
  return result.stdout;
}

function spawnGit(baseDir: string, args: string[], options: GitOptions = {}): Promise<GitProcessResult> {
  const config = [...NEUTRAL_CONFIG, ...NO_HOOKS_CONFIG, ...(options.config ?? [])].flatMap((c) => ["-c", c]);
  return runGitProcess([...config, ...args], {
    cwd: baseDir,
    env: gitEnv({ ...pinnedGitEnv(baseDir), ...options.env }),
    ...(options.inputFile !== undefined ? { inputFile: options.inputFile } : {}),
    ...(options.input !== undefined && options.inputFile === undefined ? { input: options.input } : {}),
    maxBuffer: 256 * 1024 * 1024,
  });
}

/**
 * Runs a git query whose non-zero exit means "no" (e.g. `rev-parse --verify --quiet`). Straight
 * to git like runGit: simple-git's fixed wait on a silent command cost ~50 ms per question.
 * A git that cannot be started at all is still an error.
 */
export async function gitSucceeds(baseDir: string, args: string[]): Promise<boolean> {
  const result = await spawnGit(baseDir, args);
  if (result.exitCode === undefined) throw gitFailure(baseDir, args, new Error(result.shortMessage));
  return result.exitCode === 0;
}

/**
 * Runs a git command whose exit code is part of the answer (e.g. `rev-parse --git-common-dir -q
 * --verify HEAD^{commit}`: the common dir, then the commit or exit 1 when HEAD is unborn) and
 * returns both. A git that cannot be started, is killed or prints too much is still an error.
 */
export async function gitOutputAndExit(
  baseDir: string,
  args: string[],
  options: GitOptions = {},
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const result = await spawnGit(baseDir, args, options);
  if (result.exitCode === undefined) throw gitFailure(baseDir, args, new Error(result.shortMessage));
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

export function gitFailure(baseDir: string, args: string[], error: unknown): DevflowError<"GIT_FAILED"> {
  const command = `git ${args.filter((arg) => arg !== "--").join(" ")}`;
  return new DevflowError(
    "GIT_FAILED",
    `\`${command}\` failed in ${baseDir}: ${errorText(error) || "no output"}`,
    {
      cause: error,
    },
  );
}
