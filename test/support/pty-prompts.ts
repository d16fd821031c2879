import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn as spawnPty } from "@lydell/node-pty";
import { tempDir } from "./lane-harness.js";

/** The test's environment minus what would change the screen (colour, CI mode) or pick another editor. */
export function ptyEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !["NO_COLOR", "FORCE_COLOR", "CI", "VISUAL"].includes(k)) env[k] = v;
  return { ...env, TERM: "xterm", ...extra };
}

/**
/** As an answer: the user presses Ctrl-D at the prompt instead of typing a line. */
export const CTRL_D = "\x04";

/**
 * Runs `node <args>` in a pseudo-terminal and answers each prompt once, in order: when the output
 * shows `prompt` (after where the previous one was seen), it types `answer` and Enter. Resolves with
 * the exit code and the raw output; rejects after `timeoutMs` with what was seen so far.
 */
export function answerPromptsInPty(options: {
  args: string[];
  cwd: string;
  env: Record<string, string>;
  rows: number;
  answers: [prompt: string, answer: string][];
  timeoutMs: number;
}): Promise<{ code: number; raw: string }> {
  const { args, cwd, env, rows, answers, timeoutMs } = options;
  return new Promise((resolve, reject) => {
    const term = spawnPty(process.execPath, args, { cols: 250, rows, cwd, env });
    let seen = "";
    let next = 0;
    let from = 0;
    const timer = setTimeout(() => {
      term.kill();
      reject(new Error(`no end in time:\n${seen}`));
    }, timeoutMs);
    term.onData((text) => {
      seen += text;
      const due = answers[next];
      if (!due) return;
      const at = seen.indexOf(due[0], from);
      if (at === -1) return;
      from = at + due[0].length;
      next++;
      // CTRL_D is typed as it is (end of input), every other answer with Enter.
      term.write(due[1] === CTRL_D ? CTRL_D : `${due[1]}\r`);
    });
    term.onExit(({ exitCode }) => {
      clearTimeout(timer);
      resolve({ code: exitCode, raw: seen });
    });
  });
}

/**
 * A stub `$EDITOR` (a node script) that counts its runs: `edit` is the body run on each, with `n`
 * (1 for the first run), `plan` (the parsed file, written back afterwards) and `seen` (a path the
 * body may record what it was given to) in scope. `dir` is the stub's own folder for more files.
 */
export function stubPlanEditor(edit: (paths: { seen: string; dir: string }) => string): {
  command: string;
  seen: string;
} {
  const dir = tempDir("devflow-stub-editor-");
  const script = join(dir, "editor.mjs");
  const seen = join(dir, "seen.json");
  writeFileSync(
    script,
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";
const file = process.argv[2];
const counter = ${JSON.stringify(join(dir, "count"))};
const n = existsSync(counter) ? Number(readFileSync(counter, "utf8")) + 1 : 1;
writeFileSync(counter, String(n));
const seen = ${JSON.stringify(seen)};
const plan = JSON.parse(readFileSync(file, "utf8"));
${edit({ seen, dir })}
writeFileSync(file, JSON.stringify(plan, null, 2));
`,
  );
  return { command: `node ${JSON.stringify(script)}`, seen };
}
