import { posix } from "node:path";
import { isTestPath } from "./test-paths.js";

/** `npm test` and its spellings: package.json's test scripts say what it runs. */
export const NPM_TEST = /^\s*(?:npm|yarn|pnpm)\s+(?:run\s+|run-script\s+)?(?:test|t)(?:\s|$)/;
/** The simple commands of a command line (split at `&&`, `||`, `;` and pipes). */
export const simpleCommands = (command: string): string[] => command.split(/&&|\|\||[;|]/);

/** The package manager's own options before or after `run` (`npm -s run build`, `npm run -s build`). */
const PM_OPTIONS = String.raw`(?:\s+-[\w-]+)*`;
/** `npm run <name>` inside a script: that script runs too. */
const NPM_RUN = new RegExp(
  String.raw`^\s*(?:npm|yarn|pnpm)${PM_OPTIONS}\s+(?:run|run-script)${PM_OPTIONS}\s+([\w:.-]+)`,
);
/** `yarn <name>`, `pnpm <name>`: a script of that name, when the package has one, runs too. */
const SHORT_RUN = new RegExp(String.raw`^\s*(?:yarn|pnpm)${PM_OPTIONS}\s+([\w:.-]+)`);
/** npm-run-all's `run-s a b`, `run-p a b`, `npm-run-all a b`: each name is a script. */
const RUN_ALL = /^\s*(?:run-s|run-p|npm-run-all)\s+(.*)$/;

/**
 * A script that only runs another script, as its whole text (`npm run x`, `npm run -s x`,
 * `npm --silent run-script x`, `yarn x`, `yarn run x`, `pnpm -s x`): the package manager and the
 * name it runs, else null. Only options that change nothing about what runs are skipped (stop
 * 47: `"test": "npm run -s test:unit"` named no runner, so the suite was judged from its console):
 * `-ws`, `-w <pkg>`, `pnpm -r`, `--filter`, `--prefix` run another package's script, and following
 * the name into this package's scripts would test something other than what `npm test` runs.
 * Nothing may follow the name: `npm run x -- --flag` passes arguments the script would get too.
 */
export function delegatedScript(script: string): { manager: "npm" | "yarn" | "pnpm"; name: string } | null {
  const match = WHOLE_DELEGATION.exec(script);
  const manager = match?.[1] as "npm" | "yarn" | "pnpm" | undefined;
  // `npm <name>` is one of npm's own commands (`npm test`, `npm ci`), never a script by that name.
  const name = match?.[2] ?? (manager === "npm" ? undefined : match?.[3]);
  if (manager === undefined || name === undefined) return null;
  return { manager, name };
}

/** Output and presence options: the same script of the same package runs. */
const QUIET_OPTIONS = String.raw`(?:\s+(?:-s|--silent|-q|--quiet|--if-present))*`;
const WHOLE_DELEGATION = new RegExp(
  String.raw`^\s*(npm|yarn|pnpm)${QUIET_OPTIONS}(?:\s+(?:run|run-script)${QUIET_OPTIONS}\s+([\w:.-]+)|\s+([\w:][\w:.-]*))\s*$`,
);

/**
 * The scripts a command segment runs by name (`npm run x`, `npm run -s x`, `yarn x`, `run-s x y`).
 * Review, stop 46 (attack 50): `npm run -s build` read `-s` as the name, and the build went unseen.
 */
export function scriptsRunBy(segment: string): string[] {
  const run = NPM_RUN.exec(segment)?.[1] ?? SHORT_RUN.exec(segment)?.[1];
  if (run !== undefined) return [run];
  const all = RUN_ALL.exec(segment)?.[1];
  return all === undefined ? [] : all.split(/\s+/).filter((word) => /^\w[\w:.-]*$/.test(word));
}

/**
 * The scripts `npm run <name>` runs, in order: npm runs `pre<name>` and `post<name>` around it
 * (review, stop 46: `pretest: npm run build` ran a build whose script no rule followed).
 */
export const scriptsOfRun = (name: string): string[] => [`pre${name}`, name, `post${name}`];

/**
 * The repository files the test command names as an option's value (ADR 0082): in the command,
 * in package.json's `pretest`/`test`/`posttest` scripts for `npm test` and in the scripts those run
 * with `npm run` (`--config ci/vitest.ci.mjs`, `--setup=ci/x.mjs`). What is named this way
 * configures how the suite runs even when no rule knows its name. Test files are left out: the
 * suite's tests may change (ADR 0019). `scripts` are base's (the baseline's record of
 * package.json), so an attempt cannot rename them away.
 */
export function filesTheTestCommandNames(
  command: string,
  scripts: Readonly<Record<string, unknown>> | null,
): (file: string) => boolean {
  const named = new Set<string>();
  const queue = [command];
  const script = (name: string) => {
    const text = scripts?.[name];
    if (typeof text === "string") queue.push(text);
  };
  if (NPM_TEST.test(command)) for (const name of ["pretest", "test", "posttest"]) script(name);
  // Bounded: a script can run another (`npm run test:unit`), and that one another.
  for (let i = 0; i < queue.length && i < 50; i += 1)
    for (const segment of simpleCommands(queue[i] ?? "")) {
      for (const run of scriptsRunBy(segment)) for (const name of scriptsOfRun(run)) script(name);
      const words = segment.trim().split(/\s+/);
      for (const [at, word] of words.entries()) {
        // An option's value only (`--config x`, `-c x`, `--setup=x`): a positional word is a test
        // path or the program's own code, which the attempt may change (ADR 0019).
        const value = word.startsWith("-")
          ? word.includes("=")
            ? word.slice(word.indexOf("=") + 1)
            : null
          : (words[at - 1] ?? "").startsWith("-")
            ? word
            : null;
        const path = value === null ? null : pathOf(value.replace(/^["']|["']$/g, ""));
        if (path !== null) named.add(path);
      }
    }
  return (file) => named.has(file) && !isTestPath(file);
}

/** A repository-relative path a word can name, or null (`./a/b` → `a/b`; nothing outside). */
function pathOf(word: string): string | null {
  if (word === "" || word.startsWith("/") || word.startsWith("$")) return null;
  const path = posix.normalize(word);
  if (path === "." || path === ".." || path.startsWith("../")) return null;
  return path.startsWith("./") ? path.slice(2) : path;
}
